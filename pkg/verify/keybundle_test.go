package verify_test

import (
	"context"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// editBundle rewrites a bundle through its protobuf form.
func editBundle(t *testing.T, b []byte, edit func(*protobundle.Bundle)) []byte {
	t.Helper()
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(b, &pb); err != nil {
		t.Fatal(err)
	}
	edit(&pb)
	out, err := protojson.Marshal(&pb)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKeyBundleVerifier: key-signed bundles go through sigstore-go's
// verifier with each trusted key as the only trusted material, so the
// bundle's key hint chooses nothing (a hint naming another key neither
// helps an untrusted signer nor hinders a trusted one), an envelope must
// carry exactly one signature, and the key that verified is the one
// reported, whichever of the scope's keys it is.
func TestKeyBundleVerifier(t *testing.T) {
	host := registries[0].Start(t)
	trusted, second, stranger := newKey(t), newKey(t), newKey(t)
	hint := func(k *keys.Signer) func(*protobundle.Bundle) {
		return func(pb *protobundle.Bundle) { pb.GetVerificationMaterial().GetPublicKey().Hint = k.ID() }
	}
	for _, tc := range []struct {
		name   string
		signer *keys.Signer
		edit   func(*protobundle.Bundle)
		want   error  // nil: verified
		keyID  string // the key reported
	}{
		{name: "trusted key", signer: trusted, keyID: trusted.ID()},
		{name: "second trusted key", signer: second, keyID: second.ID()},
		{name: "hint names another key", signer: trusted, edit: hint(stranger), keyID: trusted.ID()},
		{name: "untrusted key hinting a trusted one", signer: stranger, edit: hint(trusted), want: verify.ErrUntrusted},
		{name: "a second signature in the envelope", signer: trusted, edit: func(pb *protobundle.Bundle) {
			env := pb.GetDsseEnvelope()
			env.Signatures = append(env.Signatures, &protodsse.Signature{Sig: env.Signatures[0].GetSig(), Keyid: "again"})
		}, want: verify.ErrUntrusted},
		{name: "no envelope", signer: trusted, edit: func(pb *protobundle.Bundle) {
			pb.Content = &protobundle.Bundle_MessageSignature{}
		}, want: verify.ErrPayloadType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := pushHello(t, host, "addons/keybundle/"+sanitize(tc.name)+"/hello", "0.1.0", "")
			b := keyBundle(t, tc.signer, signStatement(e))
			if tc.edit != nil {
				b = editBundle(t, b, tc.edit)
			}
			storeBundle(t, e, b, sign.CosignSignPredicateType)
			res, err := verify.Verify(context.Background(), e.vt, e.desc, policyFor(t, trusted, second))
			if tc.want != nil {
				wantRefused(t, res, err, tc.want, e.desc.Digest.String())
				return
			}
			if err != nil || !res.Verified || len(res.Signatures) != 1 || res.Signatures[0].KeyID != tc.keyID {
				t.Fatalf("want verified by %s: %v %+v", tc.keyID, err, res)
			}
		})
	}
}

func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			out[i] = '-'
		}
	}
	return string(out)
}
