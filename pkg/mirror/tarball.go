package mirror

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// ErrNotMirrorTarball refuses to replace a file at the destination path that
// is not a mirror tarball (it has no mirror.json).
var ErrNotMirrorTarball = errdef.New(errdef.ErrExists, "not a mirror tarball")

// toTarball handles the selected releases for a tarball destination
// (specs/mirror.md sections 5.1–5.3): each is resolved once and verified at
// the source; compared with the tarball already there; and, unless every
// verified release is there already or a tag drifted, all are written into
// one tarball, atomically.
func toTarball(ctx context.Context, m *Mirror, jobs []job, pol *verify.Policy, opts Options, res *Result) (*Result, error) {
	path := m.Destination.Tarball
	res.Destination = path
	old, err := readIndex(path)
	if err != nil && !opts.Force {
		return res, fmt.Errorf("%w (--force replaces it)", err)
	}
	res.Releases = make([]Release, len(jobs))
	each(ctx, opts, len(jobs), func(i int) Release {
		j := jobs[i]
		rel := Release{Source: j.ref.String(), Destination: path, Tag: j.ref.Tag}
		src, err := resolveOnce(ctx, opts.Client, j.ref)
		if err == nil {
			rel.Source, rel.Digest = src.String(), src.Digest
			var v *verify.Result
			v, err = consume.Verify(ctx, src, consume.Options{Client: opts.Client, Policy: pol, Name: j.src.Name})
			rel.SignedBy = signers(v)
		}
		if err != nil {
			rel.refuse(fmt.Errorf("%s: at the source: %w", j.ref, err))
		}
		return rel
	}, res.Releases)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	idx := &Index{APIVersion: APIVersion, Kind: IndexKind, Releases: []IndexRelease{}}
	var entries []relocate.Entry
	byLayoutTag := map[string]int{}
	same, drift := old != nil, false
	for i := range res.Releases {
		rel, j := &res.Releases[i], jobs[i]
		if rel.State == StateRefused {
			continue
		}
		lt := layoutTag(j.ref, j.ref.Tag)
		if k, dup := byLayoutTag[lt]; dup {
			return res, fmt.Errorf("mirror file %s: %w: %s and %s would both be %s in the tarball", m.Path, ErrFile, res.Releases[k].Source, rel.Source, lt)
		}
		byLayoutTag[lt] = i
		was, there := old.find(j.ref.Repo(), j.ref.Tag)
		switch {
		case there && was.Digest != rel.Digest && !opts.Force:
			rel.drifted(j.ref, was.Digest)
			rel.err = fmt.Errorf("%s: %w", path, rel.err)
			drift = true
		case there && was.Digest == rel.Digest:
			rel.State = StateUpToDate
		default:
			rel.State, same = StateWouldCopy, false
		}
		idx.Releases = append(idx.Releases, IndexRelease{Repository: j.ref.Repo(), Tag: j.ref.Tag, Digest: rel.Digest, Name: j.src.Name, LayoutTag: lt})
		src := j.ref
		src.Digest = rel.Digest
		entries = append(entries, relocate.Entry{Ref: src, Name: j.src.Name, LayoutTag: lt})
	}
	if same && len(old.Releases) == len(idx.Releases) || drift || opts.DryRun || len(entries) == 0 {
		return res, res.finish() // nothing (more) to write
	}
	raw, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return res, err
	}
	results, err := relocate.ToTarballMany(ctx, opts.Client, entries, path, map[string][]byte{IndexFile: append(raw, '\n')}, relocate.Options{Policy: pol, MaxReferrers: opts.MaxReferrers})
	if err != nil {
		return res, err
	}
	for i := range res.Releases {
		rel := &res.Releases[i]
		if rel.State == StateRefused {
			continue
		}
		k := slices.IndexFunc(results, func(r *relocate.Result) bool { return r.Digest == rel.Digest })
		rel.State, rel.Copied = StateCopied, len(results[k].Items)
	}
	return res, res.finish()
}
