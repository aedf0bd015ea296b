package mirror

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Import mirrors the releases of the mirror tarball at tarball that m's
// sources select into m's registry destination (specs/mirror.md section
// 5.4): the tarball is the source, so each release is verified in it under
// the scope of its destination repository, copied with everything the
// tarball holds for it, verified again at the destination and only then
// tagged; up to date and drift are as for Run.
func Import(ctx context.Context, tarball string, m *Mirror, opts Options) (*Result, error) {
	switch {
	case opts.Client == nil:
		return nil, fmt.Errorf("%w: no registry client", ErrOptions)
	case m.Destination.Registry == nil:
		return nil, fmt.Errorf("%w: mirror file %s: an import needs a registry destination, not a tarball", ErrOptions, m.Path)
	}
	for _, s := range m.Sources {
		if s.Images {
			return nil, fmt.Errorf("%w: mirror file %s: source %s: images are not carried by a mirror tarball (specs/mirror.md section 5.4)", ErrOptions, m.Path, s.Repository.Repo())
		}
	}
	idx, err := readIndex(tarball)
	if err == nil && idx == nil {
		_, err = relocate.ReadLayoutFile(tarball, IndexFile, maxIndexSize) // names the missing file
	}
	if err != nil {
		return nil, err
	}
	pol, err := m.LoadPolicy(ctx, opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("mirror file %s: policy: %w", m.Path, err)
	}
	res := &Result{File: m.Path, Destination: m.Destination.Registry.Repo(), DryRun: opts.DryRun}
	type imp struct {
		src Source
		rel IndexRelease
	}
	var jobs []imp
	taken := map[int]bool{}
	for _, s := range m.Sources {
		byTag := map[string]int{}
		var tags []string
		for i, r := range idx.Releases {
			if r.Repository == s.Repository.Repo() {
				byTag[r.Tag] = i
				tags = append(tags, r.Tag)
			}
		}
		sel := selectTags(tags, s)
		if len(sel) == 0 {
			res.Unselected = append(res.Unselected, fmt.Sprintf("%s: no release in %s matches %q", s.Repository.Repo(), tarball, s.Versions.String()))
		}
		for _, t := range sel {
			taken[byTag[t]] = true
			jobs = append(jobs, imp{src: s, rel: idx.Releases[byTag[t]]})
		}
	}
	for i, r := range idx.Releases {
		if !taken[i] {
			res.Unselected = append(res.Unselected, fmt.Sprintf("%s:%s in %s: no source selects it", r.Repository, r.Tag, tarball))
		}
	}
	res.Releases = make([]Release, len(jobs))
	each(ctx, opts, len(jobs), func(i int) Release {
		return fromTarball(ctx, tarball, m, jobs[i].src, jobs[i].rel, pol, opts)
	}, res.Releases)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, res.finish()
}

// fromTarball handles one release of a mirror tarball.
func fromTarball(ctx context.Context, tarball string, m *Mirror, s Source, r IndexRelease, pol *verify.Policy, opts Options) Release {
	dst := m.Destination.Target(s.Repository, r.Tag)
	rel := Release{Source: tarball + ":" + r.LayoutTag, Destination: dst.String(), Tag: r.Tag, Digest: r.Digest}
	if done := atDestination(ctx, opts.Client, dst, &rel, consume.Options{Client: opts.Client, Policy: pol, Name: s.Name}, opts.Force, false); done {
		return rel
	}
	pinned := dst
	pinned.Digest = r.Digest
	e := relocate.Entry{Ref: pinned, Name: s.Name}
	ro := relocate.Options{Policy: pol, MaxReferrers: opts.MaxReferrers}
	if opts.DryRun {
		v, err := relocate.VerifyTarballEntry(ctx, tarball, e, ro)
		if err != nil {
			rel.refuse(fmt.Errorf("%s: in the tarball: %w", rel.Source, err))
			return rel
		}
		rel.State, rel.SignedBy = StateWouldCopy, signers(v)
		return rel
	}
	results, err := relocate.FromTarballMany(ctx, opts.Client, tarball, []relocate.Entry{e}, ro)
	if err != nil {
		rel.refuse(err)
		return rel
	}
	rel.State, rel.Copied, rel.SignedBy = StateCopied, len(results[0].Items), signers(results[0].Verification)
	return rel
}
