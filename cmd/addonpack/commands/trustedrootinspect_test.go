package commands_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/testsigstore"
)

// TestTrustedRootInspect: inspect lists every part of a root with its
// window in text and JSON, and warns on stderr (not in the output) about
// the parts that end within 30 days; a file that is not a root is exit 3,
// a missing one exit 4.
func TestTrustedRootInspect(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ss, err := testsigstore.New(testsigstore.WithValidity(now.Add(-24*time.Hour), now.Add(10*24*time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ss.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "trusted_root.json")
	if err := os.WriteFile(root, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	text := run(t, nil, "trusted-root", "inspect", root)
	if text.code != 0 {
		t.Fatalf("inspect: %+v", text)
	}
	for _, want := range []string{"certificate authorities (1)", "uri: " + testsigstore.FulcioURL, "- " + testsigstore.RekorURL, "rekor api: unstated", "CT logs (1)", "timestamping authorities (1)"} {
		if !strings.Contains(text.out, want) {
			t.Errorf("text does not say %q:\n%s", want, text.out)
		}
	}
	if strings.Contains(text.out, "Warning") || strings.Count(text.err, "Warning: ") != 4 || !strings.Contains(text.err, "(in 10 days)") {
		t.Errorf("want four warnings (CA, Rekor, CT log, TSA in 10 days) on stderr only: %+v", text)
	}
	js := run(t, nil, "trusted-root", "inspect", root, "--format", "json")
	var rep struct {
		Digest                 string
		CertificateAuthorities []struct{ URI string }
		Tlogs                  []struct{ BaseURL, RekorAPI string }
		Warnings               []string
	}
	if err := json.Unmarshal([]byte(js.out), &rep); err != nil || js.code != 0 {
		t.Fatalf("inspect --format json: %v %+v", err, js)
	}
	if !strings.HasPrefix(rep.Digest, "sha256:") || len(rep.CertificateAuthorities) != 1 || len(rep.Tlogs) != 1 || rep.Tlogs[0].RekorAPI != "unstated" || len(rep.Warnings) != 4 {
		t.Errorf("JSON: %s", js.out)
	}
	for name, c := range map[string]struct {
		file string
		code int
	}{
		"not a root": {filepath.Join(dir, "addon.yaml"), commands.ExitInvalid},
		"missing":    {filepath.Join(dir, "missing.json"), commands.ExitNotFound},
	} {
		if name == "not a root" {
			if err := os.WriteFile(c.file, []byte("name: hello\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if r := run(t, nil, "trusted-root", "inspect", c.file); r.code != c.code || !strings.Contains(r.err, c.file) {
			t.Errorf("%s: %+v, want exit %d naming the file", name, r, c.code)
		}
	}
}

// TestVerifyWarnsAgeingRoot: verify warns on stderr, naming the part and
// when, about a pinned root whose parts end within 30 days (the signature
// still verifies), says nothing at 40 days, and says a CA that has already
// expired (and the signature, made after, fails).
func TestVerifyWarnsAgeingRoot(t *testing.T) {
	now := time.Now()
	host := bothRegistries[0].host(t)
	for _, c := range []struct {
		name string
		opts []testsigstore.Option
		code int
		says []string
	}{
		{"in 10 days", []testsigstore.Option{testsigstore.WithValidity(now.Add(-24*time.Hour), now.Add(10*24*time.Hour))}, 0,
			[]string{"Warning: trusted root \"--trusted-root\"", "certificate authority " + testsigstore.FulcioURL + " stops being valid at", "(in 10 days)", "timestamping authority " + testsigstore.TSAURL}},
		{"in 40 days", []testsigstore.Option{testsigstore.WithValidity(now.Add(-24*time.Hour), now.Add(40*24*time.Hour))}, 0, nil},
		{"already", []testsigstore.Option{testsigstore.WithValidity(now.Add(-10*24*time.Hour), now.Add(40*24*time.Hour)),
			testsigstore.WithCAValidity(now.Add(-10*24*time.Hour), now.Add(-2*24*time.Hour))}, commands.ExitVerify,
			[]string{"certificate authority " + testsigstore.FulcioURL + " stopped being valid at", "(2 days ago)", "no other certificate authority of the root is valid now"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newKeylessWorld(t, host, c.opts...)
			r := run(t, nil, "verify", w.ref, "--trusted-root", w.root, "--github-repository", "example/hello")
			if r.code != c.code {
				t.Fatalf("verify: %+v, want exit %d", r, c.code)
			}
			if len(c.says) == 0 && strings.Contains(r.err, "trusted root") {
				t.Errorf("warned about a root valid for 40 days: %s", r.err)
			}
			for _, s := range c.says {
				if !strings.Contains(r.err, s) {
					t.Errorf("stderr does not say %q:\n%s", s, r.err)
				}
			}
		})
	}
}
