package sign

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	ggcrtypes "github.com/google/go-containerregistry/pkg/v1/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/cosign/v2/pkg/oci"
	"github.com/sigstore/cosign/v2/pkg/oci/empty"
	"github.com/sigstore/cosign/v2/pkg/oci/mutate"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	"github.com/sigstore/cosign/v2/pkg/types"
	sigopts "github.com/sigstore/sigstore/pkg/signature/options"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
)

// TagSuffixSignature and TagSuffixAttestation complete cosign's tags.
const (
	TagSuffixSignature   = "sig"
	TagSuffixAttestation = "att"
)

// CosignTag returns cosign's tag for subject: "sha256-<hex>.<suffix>".
func CosignTag(subject ocispec.Descriptor, suffix string) string {
	return subject.Digest.Algorithm().String() + "-" + subject.Digest.Encoded() + "." + suffix
}

// maxExisting bounds the layers of an existing .sig/.att image that signing
// reads back (they are carried over into the new image).
const (
	maxExisting     = 256
	maxExistingBlob = 4 << 20
)

func signClassic(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, opts Options) (*Result, error) {
	img, err := name.NewDigest(t.Ref.Repo()+"@"+subject.Digest.String(), name.Insecure)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSign, err)
	}
	var ann map[string]any
	if len(opts.Annotations) > 0 {
		ann = make(map[string]any, len(opts.Annotations))
		for k, v := range opts.Annotations {
			ann[k] = v
		}
	}
	pl, err := (payload.Cosign{Image: img, Annotations: ann}).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: payload: %w", ErrSign, err)
	}
	raw, err := s.SignMessage(bytes.NewReader(pl), sigopts.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSign, err)
	}
	sig, err := static.NewSignature(pl, base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSign, err)
	}
	tag := CosignTag(subject, TagSuffixSignature)
	// An identical claim already signed by this key is kept as it is.
	same := func(old oci.Signature) bool {
		p, _ := old.Payload()
		b, _ := old.Signature()
		return bytes.Equal(p, pl) && s.VerifySignature(bytes.NewReader(b), bytes.NewReader(p)) == nil
	}
	unchanged, err := appendLayer(ctx, t, tag, sig, same)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: "signature", Format: FormatClassic, Subject: subject.Digest, KeyID: s.ID(),
		Location: t.Ref.Repo() + ":" + tag, Unchanged: unchanged}, nil
}

func attestClassic(ctx context.Context, t Target, subject ocispec.Descriptor, s *keys.Signer, stmt []byte, predicateType string) (*Result, error) {
	env, err := envelope(ctx, s, stmt)
	if err != nil {
		return nil, err
	}
	att, err := static.NewAttestation(env,
		static.WithLayerMediaType(types.DssePayloadType),
		static.WithAnnotations(map[string]string{"predicateType": predicateType}))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSign, err)
	}
	tag := CosignTag(subject, TagSuffixAttestation)
	// An attestation of the same predicate type by the same key is replaced.
	replace := func(old oci.Signature) bool {
		a, _ := old.Annotations()
		if a["predicateType"] != predicateType {
			return false
		}
		p, _ := old.Payload()
		return verifyEnvelope(ctx, s, p) == nil
	}
	if _, err := replaceLayer(ctx, t, tag, att, replace); err != nil {
		return nil, err
	}
	return &Result{Kind: "attestation", Format: FormatClassic, Subject: subject.Digest, KeyID: s.ID(),
		PredicateType: predicateType, Location: t.Ref.Repo() + ":" + tag}, nil
}

// appendLayer adds sig to the image at tag unless a layer satisfies same.
func appendLayer(ctx context.Context, t Target, tag string, sig oci.Signature, same func(oci.Signature) bool) (bool, error) {
	existing, err := readExisting(ctx, t, tag)
	if err != nil {
		return false, err
	}
	for _, old := range existing {
		if same(old) {
			return true, nil
		}
	}
	return false, writeImage(ctx, t, tag, append(existing, sig))
}

// replaceLayer writes the image at tag with sig instead of every layer that
// satisfies drop.
func replaceLayer(ctx context.Context, t Target, tag string, sig oci.Signature, drop func(oci.Signature) bool) (bool, error) {
	existing, err := readExisting(ctx, t, tag)
	if err != nil {
		return false, err
	}
	kept := existing[:0]
	for _, old := range existing {
		if !drop(old) {
			kept = append(kept, old)
		}
	}
	return false, writeImage(ctx, t, tag, append(kept, sig))
}

// readExisting returns the layers of the cosign image at tag (none when the
// tag does not exist), as cosign signatures.
func readExisting(ctx context.Context, t Target, tag string) ([]oci.Signature, error) {
	ref := t.Ref
	ref.Tag, ref.Digest = tag, ""
	desc, err := t.Client.Resolve(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return readLayers(ctx, t, ref, desc)
}

// readLayers returns the layers of the cosign image desc of t's repository
// (ref names it in messages) as cosign signatures.
func readLayers(ctx context.Context, t Target, ref registry.Reference, desc ocispec.Descriptor) ([]oci.Signature, error) {
	raw, err := t.Client.FetchManifest(ctx, ref, desc)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSign, ref, err)
	}
	if len(m.Layers) > maxExisting {
		return nil, fmt.Errorf("%w: %s holds %d layers, more than %d", ErrSign, ref, len(m.Layers), maxExisting)
	}
	out := make([]oci.Signature, 0, len(m.Layers))
	for _, l := range m.Layers {
		b, err := t.Client.FetchBlobBytes(ctx, ref, l, maxExistingBlob)
		if err != nil {
			return nil, err
		}
		ann := map[string]string{}
		for k, v := range l.Annotations {
			ann[k] = v
		}
		sig, err := static.NewSignature(b, ann[static.SignatureAnnotationKey],
			static.WithLayerMediaType(ggcrtypes.MediaType(l.MediaType)), static.WithAnnotations(ann))
		if err != nil {
			return nil, err
		}
		out = append(out, sig)
	}
	return out, nil
}

// writeImage builds cosign's signature image from sigs (cosign's own empty
// image and mutate code, so the bytes are what cosign writes) and pushes it
// under tag.
func writeImage(ctx context.Context, t Target, tag string, sigs []oci.Signature) error {
	img, err := mutate.AppendSignatures(empty.Signatures(), false, sigs...)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSign, err)
	}
	store, root, err := imageStore(ctx, img)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSign, err)
	}
	ref := t.Ref
	ref.Tag, ref.Digest = tag, ""
	_, err = t.Client.PushNew(ctx, store, root, ref)
	return err
}
