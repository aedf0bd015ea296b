package verify_test

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// publicGood is Sigstore's own material as trusted-root create takes it,
// from the public-good trusted root in examples/policies: the current
// Fulcio chain, the Rekor key, the current CT log key and the TSA chain
// listed there.
type publicGood struct{ fulcio, rekor, ctlog, tsa []byte }

func publicGoodMaterial(tb testing.TB) publicGood {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", "public-good-trusted-root.json"))
	if err != nil {
		tb.Fatal(err)
	}
	type chain struct {
		Certificates []struct{ RawBytes []byte }
	}
	type key struct {
		PublicKey struct{ RawBytes []byte }
	}
	var r struct {
		CAs    []struct{ CertChain chain } `json:"certificateAuthorities"`
		TSAs   []struct{ CertChain chain } `json:"timestampAuthorities"`
		Tlogs  []key
		Ctlogs []key
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.CAs) < 2 || len(r.TSAs) == 0 || len(r.Tlogs) == 0 || len(r.Ctlogs) == 0 {
		tb.Fatalf("public-good root: %v", err)
	}
	pemChain := func(c chain) []byte {
		var out []byte
		for _, cert := range c.Certificates {
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.RawBytes})...)
		}
		return out
	}
	pemKey := func(k key) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: k.PublicKey.RawBytes})
	}
	return publicGood{fulcio: pemChain(r.CAs[1].CertChain), rekor: pemKey(r.Tlogs[0]), ctlog: pemKey(r.Ctlogs[len(r.Ctlogs)-1]), tsa: pemChain(r.TSAs[0].CertChain)}
}

// TestCreateTrustedRootRealMaterial: Sigstore's own material passes the
// checks (its current Fulcio chain, Rekor and CT keys, at a time they were
// all valid), so they refuse no real Sigstore's; the TSA chain listed
// beside it, whose signing certificate's time-stamping EKU is not
// critical, is refused, as the timestamp verifier linked here refuses that
// certificate.
func TestCreateTrustedRootRealMaterial(t *testing.T) {
	pg := publicGoodMaterial(t)
	m := verify.RootMaterial{FulcioChain: pg.fulcio, RekorKeys: pg.rekor, CTLogKeys: pg.ctlog, Now: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}
	if _, _, err := verify.CreateTrustedRoot(m); err != nil {
		t.Fatalf("public-good material: %v", err)
	}
	m.TSAChain = pg.tsa
	_, _, err := verify.CreateTrustedRoot(m)
	assertMaterialRefused(t, err, "TSA chain", []string{"certificate 1 of 3 (CN=TSA Timestamping", "in a critical extension"})
}

// FuzzCreateTrustedRoot: any Fulcio chain, log key and TSA chain bytes
// make a root or an invalid-input error, never a panic; a root is made only
// from a chain of CA certificates. Seeded with a test Sigstore's material,
// whole, cut and with a leaf, a private key and text added, and with
// Sigstore's public-good chains.
func FuzzCreateTrustedRoot(f *testing.F) {
	ss, err := testsigstore.New()
	if err != nil {
		f.Fatal(err)
	}
	m, err := ss.MaterialPEM()
	if err != nil {
		f.Fatal(err)
	}
	leaf, _, err := ss.Leaf(testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0"}.Identity(), time.Now(), testsigstore.CertOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(m.FulcioChain, m.RekorKey, m.TSAChain)
	f.Add(m.FulcioChain[:len(m.FulcioChain)/2], m.CTLogKey, []byte(nil))
	f.Add(cat(certsPEM(leaf), m.FulcioChain), cat(m.RekorKey, m.CTLogKey), m.TSAChain[:len(m.TSAChain)-40])
	f.Add(cat(m.FulcioChain, []byte("trailing\n")), cat([]byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"), m.RekorKey), m.FulcioChain)
	pg := publicGoodMaterial(f)
	f.Add(pg.fulcio, pg.rekor, pg.tsa)
	f.Fuzz(func(t *testing.T, chain, key, tsa []byte) {
		raw, _, err := verify.CreateTrustedRoot(verify.RootMaterial{FulcioChain: chain, RekorKeys: key, TSAChain: tsa})
		if err != nil {
			if errdef.ClassOf(err) != errdef.ErrInvalid {
				t.Fatalf("refused outside the invalid-input class: %v", err)
			}
			return
		}
		for rest := chain; ; {
			var b *pem.Block
			if b, rest = pem.Decode(rest); b == nil {
				break
			}
			if c, err := x509.ParseCertificate(b.Bytes); err != nil || !c.IsCA {
				t.Fatalf("a root (%d bytes) made from a chain with a block that is not a CA certificate (%v)", len(raw), err)
			}
		}
	})
}
