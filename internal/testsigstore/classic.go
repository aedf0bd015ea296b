package testsigstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/sigstore/cosign/v2/pkg/cosign/bundle"
	"github.com/sigstore/cosign/v2/pkg/oci"
	"github.com/sigstore/cosign/v2/pkg/oci/mutate"
	ociremote "github.com/sigstore/cosign/v2/pkg/oci/remote"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	"github.com/sigstore/cosign/v2/pkg/types"
)

// ClassicSignature signs cosign's simple-signing payload for the manifest
// digest of an artifact in repo ("host/path") as `cosign sign` does without
// --new-bundle-format: a layer of the "sha256-<hex>.sig" image carrying the
// signature, the certificate, the chain, the Rekor bundle and the RFC 3161
// timestamp as annotations.
func (s *Sigstore) ClassicSignature(id Identity, repo, digest string, o SignOptions) (oci.Signature, error) {
	payload := SimpleSigning(repo, digest)
	sg, err := s.SignMessage(id, payload, o)
	if err != nil {
		return nil, err
	}
	opts, err := classicOptions(sg, sg.Timestamp)
	if err != nil {
		return nil, err
	}
	return static.NewSignature(payload, base64.StdEncoding.EncodeToString(sg.Signature), opts...)
}

// ClassicAttestation signs statement in a DSSE envelope as `cosign attest`
// does: a layer of the "sha256-<hex>.att" image holding the envelope, with
// an empty signature annotation, a predicateType annotation and the same
// certificate, chain, Rekor bundle and timestamp annotations (cosign
// timestamps the envelope of an attestation, not its signature).
func (s *Sigstore) ClassicAttestation(id Identity, statement []byte, predicateType string, o SignOptions) (oci.Signature, error) {
	if o.At.IsZero() {
		o.At = time.Now()
	}
	d, err := s.SignDSSE(id, InTotoPayloadType, statement, o)
	if err != nil {
		return nil, err
	}
	var ts []byte
	if !o.NoTimestamp {
		if ts, err = s.timestampFor(d.Envelope, o.At); err != nil {
			return nil, err
		}
	}
	opts, err := classicOptions(d.Signed, ts)
	if err != nil {
		return nil, err
	}
	opts = append(opts, static.WithLayerMediaType(types.DssePayloadType),
		static.WithAnnotations(map[string]string{"predicateType": predicateType}))
	return static.NewAttestation(d.Envelope, opts...)
}

func classicOptions(sg *Signed, ts []byte) ([]static.Option, error) {
	if sg.v2Entry != nil {
		return nil, errors.New("testsigstore: a classic signature carries a Rekor v1 SET; it has no place for a Rekor v2 entry")
	}
	opts := []static.Option{static.WithCertChain(sg.CertPEM(), sg.ChainPEM())}
	if sg.entry != nil {
		rb := &bundle.RekorBundle{
			SignedEntryTimestamp: sg.entry.set,
			Payload: bundle.RekorPayload{
				Body:           base64.StdEncoding.EncodeToString(sg.entry.body),
				IntegratedTime: sg.entry.integratedTime,
				LogIndex:       0,
				LogID:          sg.entry.logID,
			},
		}
		opts = append(opts, static.WithBundle(rb))
	}
	if ts != nil {
		opts = append(opts, static.WithRFC3161Timestamp(&bundle.RFC3161Timestamp{SignedRFC3161Timestamp: ts}))
	}
	return opts, nil
}

// WriteClassic attaches signatures and attestations (from ClassicSignature
// and ClassicAttestation) to the manifest ref ("host/path@sha256:…") with
// cosign's own library, as the cosign CLI writes them: the existing .sig and
// .att images are read and extended. ref must be on a loopback registry
// (plain HTTP).
func WriteClassic(ctx context.Context, ref string, layers ...oci.Signature) error {
	d, err := name.NewDigest(ref, name.Insecure)
	if err != nil {
		return fmt.Errorf("testsigstore: %s: %w", ref, err)
	}
	ro := ociremote.WithRemoteOptions(remote.WithContext(ctx))
	se, err := ociremote.SignedEntity(d, ro)
	if err != nil {
		return fmt.Errorf("testsigstore: %s: %w", ref, err)
	}
	var sigs, atts bool
	for _, l := range layers {
		mt, err := l.MediaType()
		if err != nil {
			return err
		}
		if mt == types.DssePayloadType {
			se, err = mutate.AttachAttestationToEntity(se, l)
			atts = true
		} else {
			se, err = mutate.AttachSignatureToEntity(se, l)
			sigs = true
		}
		if err != nil {
			return fmt.Errorf("testsigstore: %s: %w", ref, err)
		}
	}
	if sigs {
		if err := ociremote.WriteSignatures(d.Repository, se, ro); err != nil {
			return fmt.Errorf("testsigstore: %s: %w", ref, err)
		}
	}
	if atts {
		if err := ociremote.WriteAttestations(d.Repository, se, ro); err != nil {
			return fmt.Errorf("testsigstore: %s: %w", ref, err)
		}
	}
	return nil
}

// WriteBundle stores a Sigstore bundle as an OCI referrer of the manifest
// ref ("host/path@sha256:…"), as `cosign attest --new-bundle-format` does
// (the referrers API, or the referrers tag schema where a registry has
// none). predicateType goes in the manifest's annotations.
func WriteBundle(ctx context.Context, ref string, bundleJSON []byte, predicateType string) error {
	d, err := name.NewDigest(ref, name.Insecure)
	if err != nil {
		return fmt.Errorf("testsigstore: %s: %w", ref, err)
	}
	if err := ociremote.WriteAttestationNewBundleFormat(d, bundleJSON, predicateType,
		ociremote.WithRemoteOptions(remote.WithContext(ctx))); err != nil {
		return fmt.Errorf("testsigstore: %s: %w", ref, err)
	}
	return nil
}
