package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// candidate is a signature or attestation found, not yet checked.
type candidate struct {
	Candidate
	blob ocispec.Descriptor // the layer holding the payload/envelope/bundle
	repo registry.Reference
	// sig is the base64 signature of a classic signature layer.
	sig string
	// ann are a classic layer's annotations (certificate, Rekor bundle,
	// timestamp of keyless signatures).
	ann map[string]string
	// signer identifies the signer for the threshold: a key id, or a
	// certificate's issuer and subject (distinct signers, specs/policy.md).
	signer string
}

type collector struct {
	t       Target
	subject ocispec.Descriptor
	limits  Limits
}

// collect lists candidates from the classic tags and the bundle referrers,
// the three listings at once, and fails with ErrTooMany when more than
// MaxSignatures are listed (each listing is bounded on its own: a manifest's
// size, the referrers limit).
func (c *collector) collect(ctx context.Context) ([]candidate, error) {
	return c.list(ctx, c.classicSignatures, c.classicAttestations, c.bundles)
}

// classicSignatures lists the layers of cosign's .sig tag.
func (c *collector) classicSignatures(ctx context.Context) ([]candidate, error) {
	return c.classic(ctx, sign.TagSuffixSignature, "signature")
}

// classicAttestations lists the layers of cosign's .att tag.
func (c *collector) classicAttestations(ctx context.Context) ([]candidate, error) {
	return c.classic(ctx, sign.TagSuffixAttestation, "attestation")
}

// list runs listings at once and joins what they list, in their order.
func (c *collector) list(ctx context.Context, listings ...func(context.Context) ([]candidate, error)) ([]candidate, error) {
	type listing struct {
		cands []candidate
		err   error
	}
	lists := make([]listing, len(listings))
	var wg sync.WaitGroup
	for i, list := range listings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i].cands, lists[i].err = list(ctx)
		}()
	}
	wg.Wait()
	var out []candidate
	for _, l := range lists {
		if l.err != nil && !errors.Is(l.err, ErrTooMany) {
			return nil, l.err
		}
	}
	for _, l := range lists {
		if l.err != nil {
			return nil, l.err
		}
		out = append(out, l.cands...)
	}
	return out, c.count(len(out), "")
}

// count bounds the candidates of one listing (where names it) or of all
// listed together (where is empty): more than MaxSignatures fails.
func (c *collector) count(n int, where string) error {
	switch {
	case n <= c.limits.MaxSignatures:
		return nil
	case where == "":
		return fmt.Errorf("%w: more than %d candidates; refusing to examine any", ErrTooMany, c.limits.MaxSignatures)
	}
	return fmt.Errorf("%w: more than %d candidates (at %s); refusing to examine any", ErrTooMany, c.limits.MaxSignatures, where)
}

// classic lists the layers of cosign's sha256-<hex>.<suffix> tag, read with
// one GET by tag (the manifest's own digest is not what is trusted: each
// layer is fetched by digest and its signature checked against the subject).
func (c *collector) classic(ctx context.Context, suffix, kind string) ([]candidate, error) {
	ref := c.t.Ref
	ref.Tag, ref.Digest = sign.CosignTag(c.subject, suffix), ""
	_, raw, err := c.t.Client.ResolveManifest(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := parseManifest(ref, raw)
	if err != nil {
		return nil, err
	}
	if err := c.count(len(m.Layers), ref.String()); err != nil {
		return nil, err
	}
	out := make([]candidate, 0, len(m.Layers))
	for i, l := range m.Layers {
		cd := candidate{blob: l, repo: ref, ann: l.Annotations, Candidate: Candidate{
			Kind: kind, Format: string(sign.FormatClassic), Location: fmt.Sprintf("%s (layer %d)", ref, i),
		}}
		if kind == "signature" {
			cd.sig = l.Annotations[static.SignatureAnnotationKey]
		} else {
			cd.PredicateType = l.Annotations["predicateType"]
		}
		out = append(out, cd)
	}
	return out, nil
}

func (c *collector) bundles(ctx context.Context) ([]candidate, error) {
	repo := c.t.Ref
	repo.Tag, repo.Digest = "", ""
	// Every referrer is listed (one request, as before) and bundles are
	// picked here: the cosign v2.6.5 CLI maintains the referrers tag schema
	// with the config's media type as artifactType, so a server-side or
	// oras filter on the bundle type misses what it wrote to registries
	// without the referrers API.
	all, truncated, err := c.t.Client.Referrers(ctx, repo, c.subject, "", maxListedReferrers)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, fmt.Errorf("%w: more than %d referrers of %s", ErrTooMany, maxListedReferrers, c.subject.Digest)
	}
	var list []ocispec.Descriptor
	maybe := map[digest.Digest]bool{}
	for _, d := range all {
		switch d.ArtifactType {
		case sign.BundleMediaType:
			list = append(list, d)
		case "", ocispec.MediaTypeEmptyJSON: // older writers of the referrers tag schema
			list, maybe[d.Digest] = append(list, d), true
		}
	}
	if err := c.count(len(list), "referrers of "+c.subject.Digest.String()); err != nil {
		return nil, err
	}
	// The manifests are read a few at a time (a signature's and an
	// attestation's in one round trip), then examined in listing order.
	manifests := make([]*ocispec.Manifest, len(list))
	errs := make([]error, len(list))
	var g errgroup.Group
	g.SetLimit(inFlight)
	for i, d := range list {
		g.Go(func() error {
			manifests[i], errs[i] = c.manifest(ctx, repo.WithDigest(d.Digest), d)
			return nil
		})
	}
	g.Wait()
	var out []candidate
	for i, d := range list {
		loc := repo.WithDigest(d.Digest)
		cd := candidate{repo: loc, Candidate: Candidate{Format: string(sign.FormatBundle), Location: loc.String(),
			PredicateType: d.Annotations[sign.AnnotationBundlePredicate]}}
		m, err := manifests[i], errs[i]
		if err != nil {
			if errors.Is(err, errdef.ErrDigestMismatch) || errors.Is(err, errdef.ErrSizeMismatch) || errors.Is(err, registry.ErrTooLarge) || errors.Is(err, ErrMalformed) {
				cd.fail(err)
				out = append(out, cd)
				continue
			}
			return nil, err
		}
		isBundle := len(m.Layers) == 1 && m.Layers[0].MediaType == sign.BundleMediaType
		if maybe[d.Digest] && !isBundle {
			continue // another tool's referrer, not a signature
		}
		if pt := m.Annotations[sign.AnnotationBundlePredicate]; pt != "" {
			cd.PredicateType = pt
		}
		cd.Kind = "attestation"
		if cd.PredicateType == sign.CosignSignPredicateType {
			cd.Kind = "signature"
		}
		if !isBundle {
			cd.fail(fmt.Errorf("%w: referrer %s: want one %s layer", ErrMalformed, d.Digest, sign.BundleMediaType))
		} else {
			cd.blob = m.Layers[0]
		}
		out = append(out, cd)
	}
	return out, nil
}

// maxListedReferrers bounds the referrers of one artifact listed before
// bundles are picked from them; more fails closed (ErrTooMany).
const maxListedReferrers = 1000

func (c *collector) manifest(ctx context.Context, ref registry.Reference, d ocispec.Descriptor) (*ocispec.Manifest, error) {
	raw, err := c.t.Client.FetchManifest(ctx, ref, d)
	if err != nil {
		return nil, err
	}
	return parseManifest(ref, raw)
}

func parseManifest(ref registry.Reference, raw []byte) (*ocispec.Manifest, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, ref, err)
	}
	return &m, nil
}

func (c *candidate) fail(err error) {
	if c.Verdict == "" {
		c.Verdict, c.Reason, c.err = Invalid, err.Error(), err
	}
}
