// Pull, Load and LoadDigest are the consumer path below the verification
// gate: an add-on artifact fetched by digest and its package tree unpacked
// into a directory atomically — extracted into a staging directory beside
// the target (atomicfile.Dir) and renamed into place only when complete, so
// a failed or interrupted pull leaves the target as it was.

package consume

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/spec"
)

// PullOptions tune a pull.
type PullOptions struct {
	// Limits bound the unpacked tree; nil means archive.DefaultLimits().
	Limits *archive.Limits
	// Force replaces a non-empty target directory; without it, a target
	// holding files fails with atomicfile.ErrNotEmpty.
	Force bool
	// Verify, when set, is called with the resolved manifest descriptor
	// before anything else is fetched; an error stops the pull. This is
	// where signature and provenance verification plugs in.
	Verify func(ctx context.Context, desc ocispec.Descriptor) error
	// Claim, when set, is what the reference says about the add-on (its
	// repository names it, a semver tag its version): the signed config
	// blob must agree (spec.Claim.Check) before the package is used.
	Claim *spec.Claim
}

// PullResult describes a completed pull.
type PullResult struct {
	*artifact.Loaded
	Dir   string
	Stats archive.Stats
}

// Pull resolves src once, runs opts.Verify on the digest, fetches the
// manifest, config and content layer by that digest (each checked before use)
// and unpacks the package tree into dir. Once the manifest is parsed, the
// config and the content layer are fetched concurrently.
func Pull(ctx context.Context, src artifact.Source, dir string, opts PullOptions) (*PullResult, error) {
	m, err := loadManifest(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type config struct {
		loaded *artifact.Loaded
		err    error
	}
	cfg := make(chan config, 1)
	go func() {
		l, err := loadConfig(ctx, src, m, opts)
		if err != nil {
			cancel() // stop the layer: the pull fails anyway
		}
		cfg <- config{l, err}
	}()
	res, err := unpack(ctx, src, m, dir, opts, func() (*artifact.Loaded, error) {
		c := <-cfg
		return c.loaded, c.err
	})
	if err != nil {
		// A config error explains a cancelled layer: report it first.
		select {
		case c := <-cfg:
			if c.err != nil {
				return nil, c.err
			}
		default:
		}
	}
	return res, err
}

// Load resolves src once, runs opts.Verify on the digest and only then
// fetches and checks the manifest and config.
func Load(ctx context.Context, src artifact.Source, opts PullOptions) (*artifact.Loaded, error) {
	m, err := loadManifest(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	return loadConfig(ctx, src, m, opts)
}

// LoadDigest fetches the manifest and config of desc, which the caller
// resolved and verified already, and checks them against opts.Claim
// (opts.Verify is not run).
func LoadDigest(ctx context.Context, src artifact.Source, desc ocispec.Descriptor, opts PullOptions) (*artifact.Loaded, error) {
	m, err := artifact.LoadManifest(ctx, src, desc, nil)
	if err != nil {
		return nil, err
	}
	return loadConfig(ctx, src, m, opts)
}

// loadConfig is where the consumer path reads the verified config blob, and
// so where the reference is bound to it: with opts.Claim, an add-on that is
// not the one the reference names is refused before its package is used.
func loadConfig(ctx context.Context, src artifact.Source, m *artifact.LoadedManifest, opts PullOptions) (*artifact.Loaded, error) {
	l, err := m.LoadConfig(ctx, src)
	if err != nil {
		return nil, err
	}
	if opts.Claim != nil {
		if err := opts.Claim.Check(src.Name(), l.Addon, l.Manifest.Annotations); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// loadManifest resolves src once and runs opts.Verify on the digest before
// the manifest is parsed. A registry source resolves with one GET that also
// returns the manifest bytes (artifact.ManifestResolver): they are held,
// unparsed, until Verify has passed, and no second request is needed.
func loadManifest(ctx context.Context, src artifact.Source, opts PullOptions) (*artifact.LoadedManifest, error) {
	var (
		desc ocispec.Descriptor
		raw  []byte
		err  error
	)
	if r, ok := src.(artifact.ManifestResolver); ok {
		desc, raw, err = r.ResolveManifest(ctx)
	} else {
		desc, err = src.Resolve(ctx)
	}
	if err != nil {
		return nil, err
	}
	if opts.Verify != nil {
		if err := opts.Verify(ctx, desc); err != nil {
			return nil, err
		}
	}
	return artifact.LoadManifest(ctx, src, desc, raw)
}

// Unpack fetches the content layer of an already loaded (and, by the caller,
// verified) artifact and places its tree at dir.
func Unpack(ctx context.Context, src artifact.Source, loaded *artifact.Loaded, dir string, opts PullOptions) (*PullResult, error) {
	return unpack(ctx, src, loaded.LoadedManifest, dir, opts, func() (*artifact.Loaded, error) { return loaded, nil })
}

// unpack fetches and extracts the content layer of m into a staging
// directory, then waits for config (the loaded config blob, which may still
// be in flight), checks the tree against it and renames it into place.
func unpack(ctx context.Context, src artifact.Source, m *artifact.LoadedManifest, dir string, opts PullOptions,
	config func() (*artifact.Loaded, error)) (res *PullResult, err error) {
	limits := archive.DefaultLimits()
	if opts.Limits != nil {
		limits = opts.Limits.Normalized()
	}
	if err := atomicfile.CheckDir(dir, opts.Force); err != nil {
		return nil, err
	}
	layer := m.Content
	if layer.Size > limits.MaxTotalSize {
		return nil, fmt.Errorf("%s: content layer %s is %d bytes, more than the total size limit of %d: %w",
			m.Ref, layer.Digest, layer.Size, limits.MaxTotalSize, archive.ErrLimit)
	}
	stage, err := atomicfile.NewDir(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := stage.Cleanup(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	stats, err := fetchExtract(ctx, src, m, stage, limits)
	if err != nil {
		return nil, err
	}
	loaded, err := config()
	if err != nil {
		return nil, err
	}
	if err := checkTree(stage.Tree(), loaded); err != nil {
		return nil, err
	}
	if err := stage.Commit(dir, opts.Force); err != nil {
		return nil, err
	}
	return &PullResult{Loaded: loaded, Dir: dir, Stats: stats}, nil
}

// fetchExtract spools the content layer into the staging directory, checks
// its size and digest, and only then extracts it into the staging tree. A
// source that holds the layer on disk, checked (the cache), is extracted
// from in place instead, hashed again as it is read: the tree is used only
// if the bytes extracted were the layer.
func fetchExtract(ctx context.Context, src artifact.Source, m *artifact.LoadedManifest, stage *atomicfile.Dir, limits archive.Limits) (archive.Stats, error) {
	layer := m.Content
	if o, ok := src.(artifact.BlobOpener); ok {
		r, err := o.OpenBlob(ctx, layer)
		if err == nil {
			defer r.Close()
			return extract(ctx, r, m, stage, limits)
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return archive.Stats{}, fmt.Errorf("%s: content layer: %w", m.Ref, err)
		}
	}
	spool, err := stage.Spool()
	if err != nil {
		return archive.Stats{}, err
	}
	defer spool.Close()
	if err := src.FetchBlob(ctx, layer, spool); err != nil {
		return archive.Stats{}, fmt.Errorf("%s: content layer: %w", m.Ref, err)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return archive.Stats{}, fmt.Errorf("%s: content layer %s: %w", m.Ref, layer.Digest, err)
	}
	return extract(ctx, spool, m, stage, limits)
}

// extract unpacks the content layer from r into the staging tree. From a
// blob read in place, the rest of it is read (bounded by its size) and its
// hash checked whether or not the extraction succeeded: bytes changed in
// place fail as an integrity error, not as whatever they parsed to.
func extract(ctx context.Context, r io.Reader, m *artifact.LoadedManifest, stage *atomicfile.Dir, limits archive.Limits) (archive.Stats, error) {
	layer := m.Content
	stats, err := archive.Extract(ctx, r, layer.Size, stage.Tree(), limits)
	if br, ok := r.(artifact.BlobReader); ok && ctx.Err() == nil {
		if _, cerr := io.Copy(io.Discard, br); cerr != nil && err == nil {
			err = cerr
		}
		if verr := br.Verified(); verr != nil {
			return stats, fmt.Errorf("%s: content layer: %w", m.Ref, verr)
		}
	}
	if err != nil {
		return stats, fmt.Errorf("%s: content layer %s: %w", m.Ref, layer.Digest, err)
	}
	return stats, nil
}

// checkTree makes sure the unpacked addon.yaml is the one the config blob
// describes: an artifact whose tree and config disagree is refused.
func checkTree(tree string, loaded *artifact.Loaded) error {
	data, err := os.ReadFile(filepath.Join(tree, spec.FileName))
	if err != nil {
		return fmt.Errorf("%s: content layer has no %s: %w", loaded.Ref, spec.FileName, spec.ErrInvalid)
	}
	a, err := spec.ParseAddon(data, loaded.Ref+" "+spec.FileName)
	if err != nil {
		return err
	}
	if a.Metadata.Name != loaded.Addon.Metadata.Name || a.Spec.Version != loaded.Addon.Spec.Version {
		return fmt.Errorf("%s: %s in the content layer is %s %s but the config blob says %s %s: %w", loaded.Ref, spec.FileName,
			a.Metadata.Name, a.Spec.Version, loaded.Addon.Metadata.Name, loaded.Addon.Spec.Version, spec.ErrInvalid)
	}
	return nil
}
