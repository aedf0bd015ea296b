package testsigstore

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"google.golang.org/protobuf/encoding/protojson"
)

// Media types and predicate types the helpers write.
const (
	BundleMediaType       = "application/vnd.dev.sigstore.bundle.v0.3+json"
	InTotoPayloadType     = "application/vnd.in-toto+json"
	CosignSignPredicate   = "https://sigstore.dev/cosign/sign/v1"
	SLSAProvenanceV1      = "https://slsa.dev/provenance/v1"
	simpleSigningTypeName = "cosign container image signature"
)

// Bundle returns s as a Sigstore bundle (JSON) of the version signing asked
// for (SignOptions.BundleVersion; v0.3 by default): the leaf certificate
// (v0.1 and v0.2: as a one-certificate chain), the log entry with SET and
// inclusion proof (v0.1: SET only), the timestamp, and either the DSSE
// envelope (d non-nil) or a message signature over the SHA-256 of message.
func (s *Signed) Bundle(d *DSSE, message []byte) ([]byte, error) {
	mediaType := BundleMediaType
	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: s.Cert.Raw}},
	}
	switch s.bundleVersion {
	case "":
	case "0.1", "0.2":
		mediaType = "application/vnd.dev.sigstore.bundle+json;version=" + s.bundleVersion
		vm.Content = &protobundle.VerificationMaterial_X509CertificateChain{X509CertificateChain: &protocommon.X509CertificateChain{
			Certificates: []*protocommon.X509Certificate{{RawBytes: s.Cert.Raw}},
		}}
	default:
		return nil, fmt.Errorf("testsigstore: bundle version %q: want 0.1, 0.2 or empty (0.3)", s.bundleVersion)
	}
	if s.entry != nil {
		e := s.entry.proto()
		if s.bundleVersion == "0.1" {
			e.InclusionProof = nil
		}
		vm.TlogEntries = append(vm.TlogEntries, e)
	}
	if s.v2Entry != nil {
		vm.TlogEntries = append(vm.TlogEntries, s.v2Entry)
	}
	if s.Timestamp != nil {
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{
			Rfc3161Timestamps: []*protocommon.RFC3161SignedTimestamp{{SignedTimestamp: s.Timestamp}},
		}
	}
	b := &protobundle.Bundle{MediaType: mediaType, VerificationMaterial: vm}
	if d != nil {
		b.Content = &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: d.Payload, PayloadType: d.PayloadType,
			Signatures: []*protodsse.Signature{{Sig: s.Signature}},
		}}
	} else {
		h := sha256.Sum256(message)
		b.Content = &protobundle.Bundle_MessageSignature{MessageSignature: &protocommon.MessageSignature{
			MessageDigest: &protocommon.HashOutput{Algorithm: protocommon.HashAlgorithm_SHA2_256, Digest: h[:]},
			Signature:     s.Signature,
		}}
	}
	return protojson.Marshal(b)
}

// DSSEBundle signs statement (an in-toto statement, JSON) for id and
// returns it as a Sigstore bundle v0.3 with a DSSE envelope: what `cosign
// attest --new-bundle-format` and GitHub's artifact attestations store.
func (s *Sigstore) DSSEBundle(id Identity, statement []byte, o SignOptions) ([]byte, error) {
	d, err := s.SignDSSE(id, InTotoPayloadType, statement, o)
	if err != nil {
		return nil, err
	}
	return d.Bundle(d, nil)
}

// MessageBundle signs payload for id and returns a Sigstore bundle v0.3
// with a message signature over payload's SHA-256.
func (s *Sigstore) MessageBundle(id Identity, payload []byte, o SignOptions) ([]byte, error) {
	sg, err := s.SignMessage(id, payload, o)
	if err != nil {
		return nil, err
	}
	return sg.Bundle(nil, payload)
}

// Statement returns an in-toto v1 statement about the manifest digest
// ("sha256:<hex>") of an artifact in repo ("host/path") with predicate.
func Statement(repo, digest, predicateType string, predicate any) ([]byte, error) {
	alg, hex, ok := cut(digest)
	if !ok {
		return nil, fmt.Errorf("testsigstore: digest %q", digest)
	}
	st := map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": repo, "digest": map[string]string{alg: hex}}},
		"predicateType": predicateType,
	}
	if predicate != nil {
		st["predicate"] = predicate
	}
	return json.Marshal(st)
}

// SimpleSigning returns cosign's simple-signing payload claiming the
// manifest digest of an artifact in repo ("host/path").
func SimpleSigning(repo, digest string) []byte {
	b, _ := json.Marshal(map[string]any{
		"critical": map[string]any{
			"identity": map[string]string{"docker-reference": repo},
			"image":    map[string]string{"docker-manifest-digest": digest},
			"type":     simpleSigningTypeName,
		},
		"optional": nil,
	})
	return b
}

func cut(digest string) (alg, hex string, ok bool) {
	alg, hex, ok = strings.Cut(digest, ":")
	return alg, hex, ok && alg != "" && hex != ""
}
