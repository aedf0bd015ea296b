package sign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/cosign/v2/pkg/cosign/bundle"
	"github.com/sigstore/cosign/v2/pkg/types"
	"github.com/sigstore/sigstore/pkg/signature"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/keys"
)

// Bundle storage constants, as cosign writes them.
const (
	BundleMediaType           = "application/vnd.dev.sigstore.bundle.v0.3+json"
	AnnotationBundleContent   = "dev.sigstore.bundle.content"
	AnnotationBundlePredicate = "dev.sigstore.bundle.predicateType"
	emptyConfigMediaType      = "application/vnd.oci.empty.v1+json"
	CosignSignPredicateType   = types.CosignSignPredicateType
	annotationCreated         = "org.opencontainers.image.created"
	bundleContentDSSE         = "dsse-envelope"
)

func signBundle(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, opts Options) (*Result, error) {
	stmt, err := signStatement(t, subject, opts)
	if err != nil {
		return nil, err
	}
	res, err := attestBundle(ctx, t, subject, s, stmt, CosignSignPredicateType)
	if err != nil {
		return nil, err
	}
	res.Kind = "signature"
	res.PredicateType = ""
	return res, nil
}

// signStatement is the in-toto statement a bundle signature signs, as
// cosign v3's `cosign sign` makes it: subject's digest, cosign's sign
// predicate type, an empty predicate, and the annotations (-a) on the
// subject, where `cosign verify -a` looks for them. (Before, they went in
// the predicate, which cosign v3 does not read, so `cosign verify -a`
// refused them; cosign v2.6.5 checks no annotations of a bundle.) The
// subject also has the repository as its name, which cosign ignores.
func signStatement(t Target, subject ocispec.Descriptor, opts Options) ([]byte, error) {
	desc := &intoto.ResourceDescriptor{
		Name:   t.Ref.Repo(),
		Digest: map[string]string{subject.Digest.Algorithm().String(): subject.Digest.Encoded()},
	}
	if len(opts.Annotations) > 0 {
		m := map[string]any{}
		for k, v := range opts.Annotations {
			m[k] = v
		}
		ann, err := structpb.NewStruct(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSign, err)
		}
		desc.Annotations = ann
	}
	st := &intoto.Statement{
		Type:          intoto.StatementTypeUri,
		Subject:       []*intoto.ResourceDescriptor{desc},
		PredicateType: CosignSignPredicateType,
		Predicate:     &structpb.Struct{},
	}
	stmt, err := protojson.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSign, err)
	}
	return stmt, nil
}

func attestBundle(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, stmt []byte, predicateType string) (*Result, error) {
	env, err := envelope(ctx, s, stmt)
	if err != nil {
		return nil, err
	}
	b, err := bundle.MakeNewBundle(s.Public(), nil, stmt, env, s.PublicPEM(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle: %w", ErrSign, err)
	}
	loc, err := storeBundle(ctx, t, subject, b, predicateType)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: "attestation", Format: FormatBundle, Subject: subject.Digest, KeyID: s.ID(),
		PredicateType: predicateType, Location: loc}, nil
}

// maxEmbeddedBundle bounds the bundle a referrer's manifest embeds in its
// layer descriptor's data: a signature's or a provenance's bundle is 2–10
// KiB with a key, under 20 KiB keyless; a larger one (an SBOM, a user's
// predicate) is stored as a blob only.
const maxEmbeddedBundle = 64 << 10

// storeBundle pushes the bundle b as a referrer of subject, the way cosign's
// WriteAttestationNewBundleFormat does, and returns where it went.
func storeBundle(ctx context.Context, t Target, subject ocispec.Descriptor, b []byte, predicateType string) (string, error) {
	store := memory.New()
	put := func(mt string, data []byte) (ocispec.Descriptor, error) {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(data), Size: int64(len(data))}
		return d, store.Push(ctx, d, bytes.NewReader(data))
	}
	cfg, err := put(emptyConfigMediaType, []byte("{}"))
	if err != nil {
		return "", err
	}
	layer, err := put(BundleMediaType, b)
	if err != nil {
		return "", err
	}
	// The manifest embeds the bundle too (specs/provenance.md): a reader
	// that takes it from there verifies the add-on with one request fewer
	// per bundle; cosign fetches the blob.
	if len(b) <= maxEmbeddedBundle {
		layer.Data = b
	}
	subj := ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	if subj.MediaType == "" {
		subj.MediaType = ocispec.MediaTypeImageManifest
	}
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: BundleMediaType,
		Config:       cfg,
		Layers:       []ocispec.Descriptor{layer},
		Subject:      &subj,
		Annotations: map[string]string{
			annotationCreated:         time.Now().UTC().Format(time.RFC3339),
			AnnotationBundleContent:   bundleContentDSSE,
			AnnotationBundlePredicate: predicateType,
		},
	}
	m.SchemaVersion = 2
	raw, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	root, err := put(ocispec.MediaTypeImageManifest, raw)
	if err != nil {
		return "", err
	}
	root.ArtifactType = BundleMediaType
	ref := t.Ref
	ref.Tag, ref.Digest = "", ""
	pushed, err := t.Client.PushNew(ctx, store, root, ref)
	if err != nil {
		return "", err
	}
	return pushed.String(), nil
}

// verifyEnvelope checks a DSSE envelope's signature with v.
func verifyEnvelope(ctx context.Context, v signature.Verifier, env []byte) error {
	var e ssldsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		return err
	}
	ev, err := ssldsse.NewEnvelopeVerifier(&sigdsse.VerifierAdapter{SignatureVerifier: v})
	if err != nil {
		return err
	}
	_, err = ev.Verify(ctx, &e)
	return err
}
