package policyexport_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/policyexport"
)

// TestKyvernoKeylessRoot: the trusted root travels as Kyverno's attestor
// takes it, each part decoding as what it is: the CA chain as
// certificates, the Rekor and CT log keys as PKIX public keys.
func TestKyvernoKeylessRoot(t *testing.T) {
	p, o := load(t, "images-keyless-open.yaml")
	o.For = "kyverno"
	res, err := policyexport.Export(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	var cp struct {
		Spec struct {
			Rules []struct {
				VerifyImages []struct {
					Attestors []struct {
						Entries []struct {
							Keyless struct {
								Roots string
								Rekor struct{ URL, Pubkey string }
								Ctlog struct{ Pubkey string }
							}
						}
					}
				} `json:"verifyImages"`
			}
		}
	}
	if err := yaml.Unmarshal(res.Stream(), &cp); err != nil {
		t.Fatal(err)
	}
	kl := cp.Spec.Rules[0].VerifyImages[0].Attestors[0].Entries[0].Keyless
	certs := 0
	for rest := []byte(kl.Roots); ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			t.Fatalf("roots: %v", err)
		}
		certs++
	}
	if certs != 2 {
		t.Errorf("roots hold %d certificates, want the root's chain of 2", certs)
	}
	for name, k := range map[string]string{"rekor": kl.Rekor.Pubkey, "ctlog": kl.Ctlog.Pubkey} {
		b, _ := pem.Decode([]byte(k))
		if b == nil {
			t.Fatalf("%s pubkey: no PEM", name)
		}
		if _, err := x509.ParsePKIXPublicKey(b.Bytes); err != nil {
			t.Errorf("%s pubkey: %v", name, err)
		}
	}
	if !strings.HasPrefix(kl.Rekor.URL, "https://rekor.") {
		t.Errorf("rekor url %q", kl.Rekor.URL)
	}
}
