package verify

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/addonpack/addonpack/pkg/keys"
)

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

// keyBundle verifies a key-signed Sigstore bundle (v0.1–v0.3) holding a
// DSSE envelope with sigstore-go's verifier, one trusted key of the scope
// at a time, in the scope's order: the key is the trusted material (the
// bundle's key hint chooses nothing), the envelope must carry exactly one
// signature, and the statement's subject must be the digest (artifact
// digest policy). No log entry or timestamp is required of a key signature
// (WithCurrentTime): the key's validity window is the policy's, checked
// afterwards at the verification time (checker.window), and log entries a
// signer attached are not read, as before. Then the statement's types are
// checked (statementChecks). A bundle a trusted key signed over another
// subject is ErrDigestClaim, not ErrUntrusted: the second pass without the
// artifact policy tells the two apart, on the failure path only.
func (ck checker) keyBundle(cd *candidate, b []byte) (*Key, error) {
	var sb sgbundle.Bundle
	if err := sb.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("%w: sigstore bundle: %w", ErrMalformed, err)
	}
	if sb.GetDsseEnvelope() == nil {
		return nil, fmt.Errorf("%w: sigstore bundle without a DSSE envelope", ErrPayloadType)
	}
	env, err := envelopeJSON(sb.GetDsseEnvelope())
	if err != nil {
		return nil, err
	}
	artifact := sgverify.WithArtifactDigest(ck.subject.Digest.Algorithm().String(), decodeHex(ck.subject.Digest.Encoded()))
	var signedOther *Key
	for i := range ck.scope.Keys {
		k := &ck.scope.Keys[i]
		v, err := sgverify.NewVerifier(keyMaterial(k.Verifier), sgverify.WithCurrentTime())
		if err != nil {
			return nil, fmt.Errorf("%w: key %q: %w", ErrMalformed, k.Name, err)
		}
		if _, err := v.Verify(&sb, sgverify.NewPolicy(artifact, sgverify.WithKey())); err == nil {
			return k, ck.statementChecks(cd, env, "key "+keys.ShortID(k.Verifier.ID))
		}
		if signedOther == nil {
			if _, err := v.Verify(&sb, sgverify.NewPolicy(sgverify.WithoutArtifactUnsafe(), sgverify.WithKey())); err == nil {
				signedOther = k
			}
		}
	}
	if signedOther == nil {
		return nil, ck.untrusted()
	}
	who := "key " + keys.ShortID(signedOther.Verifier.ID)
	if err := ck.statementChecks(cd, env, who); err != nil {
		return nil, err // the statement's type or subject, in words
	}
	return nil, fmt.Errorf("%w: %s signed it, but the statement's subject is not %s", ErrDigestClaim, who, ck.subject.Digest)
}

// keyMaterial is sigstore-go trusted material holding one public key,
// whatever key hint a bundle names, valid at every time (the policy's key
// window is checked apart, with its own error).
func keyMaterial(k *keys.Verifier) root.TrustedMaterial {
	return root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return anyTimeKey{k}, nil
	})
}

type anyTimeKey struct{ signature.Verifier }

func (anyTimeKey) ValidAtTime(time.Time) bool { return true }
