// Package push publishes an add-on: it builds a source directory (or opens
// an OCI layout built earlier) and copies the artifact to a registry,
// uploading only the blobs the registry lacks. With Options.Sign it then
// signs the pushed digest and attaches SLSA provenance, in the same process.
package push

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Options tune a push.
type Options struct {
	// Build tunes the build when the source is a directory.
	Build build.Options
	// Sign, when set, signs and attests the pushed artifact.
	Sign *SignOptions
	// Name is the add-on the destination repository holds when its last
	// path element is not the add-on's name (a mirror that renames). The
	// destination must name the add-on that is pushed, and a semver tag
	// its version, as consumers require (spec.Claim): a push they would
	// refuse is refused before anything is uploaded.
	Name string
}

// Result describes what was pushed.
type Result struct {
	// Ref is the pushed artifact by digest.
	Ref registry.Reference `json:"reference"`
	// Tag is the tag that now points at it, if any.
	Tag string `json:"tag,omitempty"`
	// Manifest is the root descriptor.
	Manifest ocispec.Descriptor `json:"manifest"`
	// Signatures lists the signature and provenance attestation stored.
	Signatures []sign.Result `json:"signatures,omitempty"`
	// UnresolvedImages are images of spec.images the SBOM records without
	// a digest (SBOMOptions.AllowUnresolved).
	UnresolvedImages []sbom.Image `json:"unresolvedImages,omitempty"`
}

// opened is a source ready to push, with the facts provenance records.
type opened struct {
	store  content.ReadOnlyStorage
	root   ocispec.Descriptor
	build  *build.Result // nil for a prebuilt layout
	layout bool
	close  func() error // releases the store, if it needs it
	// addon and annotations are the config blob's add-on and the manifest's
	// annotations: what the destination reference must name.
	addon       *spec.Addon
	annotations map[string]string
	// images are spec.images resolved for the SBOM, before the push.
	images []sbom.Image
}

func (o *opened) release() {
	if o.close != nil {
		o.close()
	}
}

// Push builds src (an add-on source directory, or an OCI layout directory or
// tarball as "PATH[:TAG]") and pushes it to ref; with opts.Sign it signs the
// digest and attaches provenance.
func Push(ctx context.Context, dst *registry.Client, src string, ref registry.Reference, opts Options) (*Result, error) {
	started := time.Now()
	var unlocked chan error
	if opts.Sign != nil {
		if err := opts.Sign.check(); err != nil {
			return nil, err
		}
		if opts.Sign.Signer == nil {
			// Unlock the key (scrypt: about 200 ms) on the other core
			// while this one builds and uploads; join before signing.
			so := *opts.Sign
			opts.Sign = &so
			unlocked = make(chan error, 1)
			go func() {
				if so.Keyless != nil { // the certificate is keyless's unlock
					unlocked <- so.Keyless.Certify(ctx)
					return
				}
				s, err := so.Unlock(ctx)
				so.Signer = s
				unlocked <- err
			}()
		}
	}
	// join waits for the unlock, if one is running; err is the first error.
	join := func(err error) error {
		if unlocked != nil {
			uerr := <-unlocked
			unlocked = nil
			if err == nil {
				err = uerr
			}
		}
		return err
	}
	o, err := open(ctx, src, opts)
	if err != nil {
		return nil, join(err)
	}
	defer o.release()
	if ref.Tag == "" && ref.Digest == "" {
		// A reference without a tag gets the add-on's version, as consumers
		// and stacks look for it (Result.Tag says so); left untagged, the
		// artifact would be reachable by digest only.
		ref.Tag = strings.ReplaceAll(o.addon.Spec.Version, "+", "_")
	}
	claim := spec.Claim{Repository: ref.Repository, Tag: ref.Tag, Name: opts.Name}
	if err := claim.Check(ref.String(), o.addon, o.annotations); err != nil {
		return nil, join(fmt.Errorf("push %s: %w", src, err))
	}
	var unresolved []sbom.Image
	if opts.Sign != nil && opts.Sign.SBOM != nil {
		if o.images, unresolved, err = resolveImages(ctx, dst, o, opts.Sign.SBOM); err != nil {
			return nil, join(err)
		}
	}
	select { // the unlock may already have failed: then upload nothing
	case uerr := <-unlocked:
		unlocked = nil
		if uerr != nil {
			return nil, uerr
		}
	default:
	}
	var pushed registry.Reference
	if unlocked != nil {
		// Upload while the key unlocks; the root manifest and the tag are
		// written only once it is unlocked, so a wrong passphrase leaves
		// no unsigned artifact behind.
		pushed, err = dst.PushAfter(ctx, o.store, o.root, ref, func(context.Context) error { return join(nil) })
	} else {
		pushed, err = dst.Push(ctx, o.store, o.root, ref)
	}
	if err = join(err); err != nil {
		return nil, err
	}
	res := &Result{Ref: pushed, Tag: ref.Tag, Manifest: o.root, UnresolvedImages: unresolved}
	if opts.Sign != nil {
		sigs, err := signAndAttest(ctx, dst, src, ref, o, opts, started)
		res.Signatures = sigs
		if err != nil {
			return res, fmt.Errorf("pushed %s, but: %w", pushed, err)
		}
	}
	return res, nil
}

// open returns the store and root manifest of src.
func open(ctx context.Context, src string, opts Options) (*opened, error) {
	if layout.IsLayout(src) {
		fi, err := os.Stat(src)
		if err == nil && fi.IsDir() {
			if _, err := os.Stat(src + "/addon.yaml"); err == nil {
				return nil, fmt.Errorf("%s holds both addon.yaml and an OCI layout: ambiguous source", src)
			}
		}
		store, root, err := layout.Open(ctx, src)
		if err != nil {
			return nil, err
		}
		path, _ := layout.Split(src)
		l, err := artifact.LoadDigest(ctx, &artifact.Layout{Path: path, Store: store, Root: root}, root)
		if err != nil {
			return nil, err
		}
		return &opened{store: store, root: root, layout: true, addon: l.Addon, annotations: l.Manifest.Annotations}, nil
	}
	store, err := build.NewSpool("")
	if err != nil {
		return nil, err
	}
	res, err := build.Build(ctx, src, store, opts.Build)
	if err != nil {
		store.Close()
		return nil, err
	}
	return &opened{store: store, root: res.Manifest, build: res, close: store.Close, addon: res.Addon, annotations: res.Annotations}, nil
}

// WriteNotes writes on log what a push to ref did that its output does not
// say: the tag it chose for a reference without one, and the images the
// SBOM records without a digest.
func (r *Result) WriteNotes(log io.Writer, ref registry.Reference) {
	if ref.Tag == "" && ref.Digest == "" && r.Tag != "" {
		fmt.Fprintf(log, "tagged %s: %s names no tag, so the add-on's version is its tag\n", r.Tag, ref)
	}
	for _, img := range r.UnresolvedImages {
		fmt.Fprintf(log, "Warning: the SBOM records image %s without a digest: %s\n", img.Reference, img.Error)
	}
}

// WriteText prints the pushed reference on w and each signature and
// attestation stored, and with what, on log.
func (r *Result) WriteText(w, log io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n", r.Ref); err != nil {
		return err
	}
	for _, s := range r.Signatures {
		what := s.Kind // a signature has no predicate type
		if s.PredicateType != "" {
			what += " " + s.PredicateType
		}
		fmt.Fprintf(log, "%s with %s at %s\n", what, s.SignedBy(), s.Location)
	}
	return nil
}
