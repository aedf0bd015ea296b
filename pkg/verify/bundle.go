package verify

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"google.golang.org/protobuf/encoding/protojson"
)

// bundleEnvelope extracts the DSSE envelope of a Sigstore bundle (v0.1 to
// v0.3) in the JSON form DSSE verifiers read.
func bundleEnvelope(b []byte) ([]byte, error) {
	var pb protobundle.Bundle
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &pb); err != nil {
		return nil, fmt.Errorf("%w: sigstore bundle: %w", ErrMalformed, err)
	}
	if !strings.HasPrefix(pb.GetMediaType(), "application/vnd.dev.sigstore.bundle") {
		return nil, fmt.Errorf("%w: sigstore bundle media type %q", ErrMalformed, pb.GetMediaType())
	}
	d := pb.GetDsseEnvelope()
	if d == nil {
		return nil, fmt.Errorf("%w: sigstore bundle without a DSSE envelope", ErrPayloadType)
	}
	return envelopeJSON(d)
}

// envelopeJSON writes a bundle's DSSE envelope in the JSON form DSSE
// verifiers read.
func envelopeJSON(d *protodsse.Envelope) ([]byte, error) {
	e := ssldsse.Envelope{PayloadType: d.GetPayloadType(), Payload: base64.StdEncoding.EncodeToString(d.GetPayload())}
	for _, s := range d.GetSignatures() {
		e.Signatures = append(e.Signatures, ssldsse.Signature{KeyID: s.GetKeyid(), Sig: base64.StdEncoding.EncodeToString(s.GetSig())})
	}
	return json.Marshal(e)
}

// isKeylessBundle reports whether b is a Sigstore bundle whose verification
// material is a certificate (keyless) rather than a public key hint.
func isKeylessBundle(b []byte) bool {
	var pb protobundle.Bundle
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &pb); err != nil {
		return false
	}
	vm := pb.GetVerificationMaterial()
	return vm.GetCertificate() != nil || vm.GetX509CertificateChain() != nil
}

// keylessBundle verifies a keyless Sigstore bundle (v0.1–v0.3) holding a
// DSSE envelope against the scope's identities: sigstore-go checks the
// envelope's signature, the certificate chain at the verified signing time,
// the log entry, the timestamp and the SCT as the root requires, and that
// the statement's subject is the digest; then the statement's types are
// checked as for key-signed bundles.
func (ck checker) keylessBundle(cd *candidate, b []byte) (*Identity, error) {
	var sb sgbundle.Bundle
	if err := sb.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("%w: sigstore bundle: %w", ErrMalformed, err)
	}
	if sb.GetDsseEnvelope() == nil {
		return nil, fmt.Errorf("%w: a keyless bundle with a message signature: the payload it signs is not stored with it; want a DSSE envelope", ErrPayloadType)
	}
	id, _, err := ck.keyless(cd, &sb, sgverify.WithArtifactDigest(ck.subject.Digest.Algorithm().String(), decodeHex(ck.subject.Digest.Encoded())), false)
	if err != nil {
		return nil, err
	}
	env, err := envelopeJSON(sb.GetDsseEnvelope())
	if err != nil {
		return nil, err
	}
	return id, ck.statementChecks(cd, env, "identity "+id.Name)
}
