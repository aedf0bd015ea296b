package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// DefaultConcurrency is how many releases are handled at once.
const DefaultConcurrency = 4

// ErrOptions reports options a run cannot work with.
var ErrOptions = errdef.New(errdef.ErrInvalidArgument, "invalid mirror options")

// Options tune a run.
type Options struct {
	// Client reaches the registries; required.
	Client *registry.Client
	// Getenv reads env:// keys of the file's policy; nil means os.Getenv.
	Getenv func(string) string
	// DryRun lists, verifies at the source and compares with the
	// destination, and writes nothing.
	DryRun bool
	// Force copies a release whose destination tag points at another
	// digest (drift), moving the tag.
	Force bool
	// Concurrency bounds the releases handled at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// MaxReferrers bounds the referrers copied per manifest (relocate).
	MaxReferrers int
	// Warnings receives warnings (tags near a version); nil discards them.
	Warnings io.Writer
	// Progress, when set, is called as each release ends (concurrently).
	Progress func(Release)
}

func (o Options) limit() int {
	if o.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return o.Concurrency
}

// job is one selected release: its source and REPOSITORY:TAG.
type job struct {
	src Source
	ref registry.Reference
}

// Run mirrors m (specs/mirror.md): it selects the releases of every source,
// and for each, concurrently, compares the destination tag with the
// release's digest, verifies the release at the source under m's policy,
// copies it with everything that vouches for it (relocate), verifies it at
// the destination and only then sets its tag. The Result is returned with
// the run's error: the first refusal, else ErrDrift.
func Run(ctx context.Context, m *Mirror, opts Options) (*Result, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("%w: no registry client", ErrOptions)
	}
	pol, err := m.LoadPolicy(ctx, opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("mirror file %s: policy: %w", m.Path, err)
	}
	res := &Result{File: m.Path, DryRun: opts.DryRun, Releases: []Release{}}
	var jobs []job
	for _, s := range m.Sources {
		tags, err := selectRepository(ctx, opts.Client, s, opts.Warnings)
		if err != nil {
			return nil, fmt.Errorf("mirror file %s: source %s: %w", m.Path, s.Repository.Repo(), err)
		}
		if len(tags) == 0 {
			res.Unselected = append(res.Unselected, fmt.Sprintf("%s: no version matches %q", s.Repository.Repo(), s.Versions.String()))
		}
		for _, t := range tags {
			ref := s.Repository
			ref.Tag = t
			jobs = append(jobs, job{src: s, ref: ref})
		}
	}
	if m.Destination.Tarball != "" {
		return toTarball(ctx, m, jobs, pol, opts, res)
	}
	res.Destination = m.Destination.Registry.Repo()
	res.Releases = make([]Release, len(jobs))
	each(ctx, opts, len(jobs), func(i int) Release { return toRegistry(ctx, m, jobs[i], pol, opts) }, res.Releases)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return res, res.finish()
}

// each runs fn for 0..n-1, at most opts.limit() at once, storing results in
// out and reporting each to opts.Progress.
func each(ctx context.Context, opts Options, n int, fn func(i int) Release, out []Release) {
	var g errgroup.Group
	g.SetLimit(opts.limit())
	for i := range n {
		g.Go(func() error {
			if ctx.Err() != nil {
				out[i] = Release{State: StateRefused, Error: ctx.Err().Error(), err: ctx.Err()}
				return nil
			}
			out[i] = fn(i)
			if opts.Progress != nil {
				opts.Progress(out[i])
			}
			return nil
		})
	}
	_ = g.Wait() // the functions return no error: each release carries its own
}

// toRegistry handles one release of a registry source for a registry
// destination (specs/mirror.md section 3).
func toRegistry(ctx context.Context, m *Mirror, j job, pol *verify.Policy, opts Options) Release {
	c := opts.Client
	dst := m.Destination.Target(j.ref, j.ref.Tag)
	rel := Release{Source: j.ref.String(), Destination: dst.String(), Tag: j.ref.Tag}
	src, err := resolveOnce(ctx, c, j.ref)
	if err != nil {
		rel.refuse(err)
		return rel
	}
	rel.Source, rel.Digest = src.String(), src.Digest
	co := consume.Options{Client: c, Policy: pol, Name: j.src.Name}
	if done := atDestination(ctx, c, dst, &rel, co, opts.Force, j.src.Images); done {
		return rel
	}
	if opts.DryRun {
		v, err := consume.Verify(ctx, src, co)
		if err != nil {
			rel.refuse(fmt.Errorf("%s: at the source: %w", src, err))
			return rel
		}
		rel.State, rel.SignedBy = StateWouldCopy, signers(v)
		return rel
	}
	// The copy verifies the source itself, against exactly the signatures
	// it then writes, before anything is written (relocate.Copy).
	cr, err := relocate.Copy(ctx, c, src, dst, relocate.Options{Policy: pol, Images: j.src.Images, Name: j.src.Name, MaxReferrers: opts.MaxReferrers})
	if err != nil {
		rel.refuse(err)
		return rel
	}
	rel.State, rel.Copied, rel.SignedBy = StateCopied, len(cr.Items), signers(cr.Verification)
	return rel
}

// resolveOnce resolves ref's tag to a digest: REPOSITORY:TAG@DIGEST, which
// everything after reads by.
func resolveOnce(ctx context.Context, c *registry.Client, ref registry.Reference) (registry.Reference, error) {
	d, err := c.Resolve(ctx, ref)
	if err != nil {
		return ref, err
	}
	ref.Digest = d.Digest
	return ref, nil
}

// atDestination resolves dst's tag and settles rel when nothing is to be
// copied: up to date (the tag points at rel.Digest and the release verifies
// there, with its relocation record when images are copied), drift
// (another digest, without force), or refused (the destination cannot be
// read). It returns false when rel is to be copied.
func atDestination(ctx context.Context, c *registry.Client, dst registry.Reference, rel *Release, co consume.Options, force, images bool) bool {
	cur, err := c.Resolve(ctx, dst)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return false
	case err != nil:
		rel.refuse(fmt.Errorf("destination %s: %w", dst, err))
		return true
	case cur.Digest != rel.Digest:
		if force {
			return false
		}
		rel.drifted(dst, cur.Digest)
		return true
	}
	pinned := dst
	pinned.Digest = cur.Digest
	v, err := consume.Verify(ctx, pinned, co)
	if err == nil && images {
		// Copied before without its images (images: true added since):
		// copied again, which adds them and their record.
		var rec *relocate.Record
		if rec, err = relocate.LoadRecord(ctx, c, dst, cur); err == nil && rec == nil {
			return false
		}
	}
	switch {
	case err == nil:
		rel.State, rel.SignedBy = StateUpToDate, signers(v)
		return true
	case errors.Is(err, errdef.ErrVerification):
		return false // tagged, but does not verify there (signatures removed): copied again
	}
	rel.refuse(fmt.Errorf("destination %s: %w", pinned, err))
	return true
}
