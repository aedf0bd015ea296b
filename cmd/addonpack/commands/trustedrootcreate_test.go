package commands_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// TestTrustedRootCreateRefusesMaterial: trust material that is not what
// its flag claims — a Fulcio signing certificate as the CA chain, a private
// key as the Rekor key, a TSA chain without its signing certificate, the
// TSA chain as the Fulcio chain — exits 3 naming the flag, the file, the
// certificate and the rule, and writes nothing.
func TestTrustedRootCreateRefusesMaterial(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ss.MaterialPEM()
	if err != nil {
		t.Fatal(err)
	}
	leaf, _, err := ss.Leaf(testsigstore.GitHubWorkflow{Repository: "example/hello", Ref: "refs/tags/v0.1.0"}.Identity(), time.Now(), testsigstore.CertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	leafPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw})
	tsaTail := m.TSAChain[strings.Index(string(m.TSAChain), "-----END CERTIFICATE-----\n")+len("-----END CERTIFICATE-----\n"):]
	for _, tc := range []struct {
		name       string
		flag, file string
		content    []byte
		says       []string
	}{
		{"Fulcio leaf as the chain", "--fulcio-chain", "fulcio-chain.pem", append(leafPEM, m.FulcioChain...), []string{"certificate 1 of 3 (empty subject", "not a certificate authority"}},
		{"TSA chain as the Fulcio chain", "--fulcio-chain", "fulcio-chain.pem", m.TSAChain, []string{"certificate 1 of 3 (CN=addonpack test tsa,O=addonpack.test)", "not a certificate authority"}},
		{"private key as the Rekor key", "--rekor-key", "rekor.pub", priv, []string{"PEM block 1 is a private key"}},
		{"CA chain as the CT log key", "--ctlog-key", "ctlog.pub", m.FulcioChain, []string{"2 PEM blocks: want exactly one PUBLIC KEY"}},
		{"TSA chain without its signing certificate", "--tsa-chain", "tsa-chain.pem", tsaTail, []string{"certificate 1 of 2 (CN=addonpack test tsa intermediate,O=addonpack.test)", "a CA certificate as the TSA's signing certificate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"--fulcio-chain": "fulcio-chain.pem", "--rekor-key": "rekor.pub", "--ctlog-key": "ctlog.pub", "--tsa-chain": "tsa-chain.pem"}
			content := map[string][]byte{"--fulcio-chain": m.FulcioChain, "--rekor-key": m.RekorKey, "--ctlog-key": m.CTLogKey, "--tsa-chain": m.TSAChain}
			content[tc.flag] = tc.content
			args := []string{"trusted-root", "create"}
			for flag, name := range files {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, content[flag], 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, flag, p)
			}
			out := filepath.Join(dir, "out", "root.json")
			if err := os.Mkdir(filepath.Dir(out), 0o700); err != nil {
				t.Fatal(err)
			}
			r := run(t, nil, append(args, "-o", out)...)
			if r.code != commands.ExitInvalid || r.out != "" {
				t.Fatalf("got %+v, want exit %d", r, commands.ExitInvalid)
			}
			for _, s := range append([]string{tc.flag + " " + filepath.Join(dir, tc.file) + ": "}, tc.says...) {
				if !strings.Contains(r.err, s) {
					t.Errorf("message does not say %q: %s", s, r.err)
				}
			}
			if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
