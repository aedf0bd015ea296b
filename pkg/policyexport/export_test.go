package policyexport_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/policyexport"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func load(t *testing.T, name string) (*verify.Policy, policyexport.Options) {
	t.Helper()
	path := filepath.Join("testdata", "policies", name)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := verify.ParsePolicy(context.Background(), raw, path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return p, policyexport.Options{Policy: raw, File: path}
}

func ref(t *testing.T, s string) *registry.Reference {
	t.Helper()
	r, err := registry.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return &r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./pkg/policyexport -update):\n%s", name, got)
	}
}

// TestExport: each target's output for the test policies, against goldens
// (crd_test.go validates them against the consumers' CRDs).
func TestExport(t *testing.T) {
	tests := []struct {
		golden, policy, target, ref string
		lossy                       bool
		lost                        int
	}{
		{"flux-keys.yaml", "keys.yaml", "flux", "registry.example.com/addons/hello:0.1.0", false, 0},
		{"flux-keys-fragment.yaml", "keys.yaml", "flux", "", false, 0},
		{"flux-keyless.yaml", "keyless-open.yaml", "flux", "ghcr.io/example/addons/hello@sha256:" + strings.Repeat("ab", 32), false, 0},
		{"flux-keyless-lossy.yaml", "keyless.yaml", "flux", "ghcr.io/example/addons/hello:1.0.0", true, 1},
		{"flux-strict-lossy.yaml", "strict.yaml", "flux", "registry.example.com/addons/critical/dns:1.0.0", true, 7},
		{"flux-strict-lenient-scope.yaml", "strict.yaml", "flux", "registry.example.com/addons/hello:1.0.0", true, 1},
		{"argocd", "keyless.yaml", "argocd", "", false, 0},
		{"argocd-strict", "strict.yaml", "argocd", "", false, 0},
		{"kyverno.yaml", "images.yaml", "kyverno", "", false, 0},
		{"kyverno-count-lossy.yaml", "images-count.yaml", "kyverno", "", true, 1},
		{"kyverno-keyless-lossy.yaml", "images-keyless.yaml", "kyverno", "", true, 2},
		{"kyverno-keyless.yaml", "images-keyless-open.yaml", "kyverno", "", false, 0},
		{"policy-controller-lossy.yaml", "images.yaml", "policy-controller", "", true, 1},
		{"policy-controller-keyless-lossy.yaml", "images-keyless.yaml", "policy-controller", "", true, 3},
		{"policy-controller-keyless.yaml", "images-keyless-open.yaml", "policy-controller", "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			p, o := load(t, tt.policy)
			o.For, o.Lossy = tt.target, tt.lossy
			if tt.ref != "" {
				o.Ref = ref(t, tt.ref)
			}
			res, err := policyexport.Export(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Lost) != tt.lost {
				t.Errorf("lost %d items, want %d: %q", len(res.Lost), tt.lost, res.Lost)
			}
			if got := strings.Count(string(res.Header), "# addonpack: not enforced by "); got != tt.lost {
				t.Errorf("header has %d comment lines, want %d:\n%s", got, tt.lost, res.Header)
			}
			if strings.HasSuffix(tt.golden, ".yaml") {
				golden(t, tt.golden, res.Stream())
				return
			}
			for _, f := range res.Files {
				golden(t, tt.golden+"-"+f.Name, f.Data)
			}
		})
	}
}

// TestExportRefuses: without --lossy, a target that cannot enforce part of
// the policy is refused (exit 2), naming every item that would be lost.
func TestExportRefuses(t *testing.T) {
	tests := []struct {
		policy, target, ref string
		want                []string
	}{
		{"strict.yaml", "flux", "registry.example.com/addons/critical/dns:1.0.0", []string{
			`scope "registry.example.com/addons/critical": threshold 2`,
			`provenance.builderIds "https://github.com/example/addons/.github/workflows/release.yml@refs/tags/*"`,
			`provenance.sourceRepositories "https://github.com/example/addons"`,
			`provenance.predicateTypes "sbom"`,
			`attestation rule "no-critical" (vuln)`,
			`key "release" validity window`,
			`identity "release-workflow" (Flux verifies with the Secret's keys`,
		}},
		{"strict.yaml", "flux", "registry.example.com/addons/x:1", []string{`key "release" validity window`}},
		{"vetted.yaml", "flux", "registry.example.com/vetted/dns:1.0.0", []string{`requireVerificationSummary (verifier "https://addonpack.dev/vet")`}},
		{"images.yaml", "policy-controller", "", []string{`images "registry.example.com/base/*": threshold 2`}},
		{"images-keyless.yaml", "kyverno", "", []string{
			`identity "image-workflow" trusted root "test-sigstore": a signed timestamp is required`,
			`trusted root "test-sigstore": validity ends of certificate authority https://fulcio.test.invalid (until 2036-01-01T00:00:00Z)`,
		}},
		{"keyless.yaml", "flux", "ghcr.io/example/addons/hello:1.0.0", []string{
			`trusted root "test-sigstore": a signed timestamp is required (Flux requires one only of a bundle whose log entries are all Rekor v2)`,
		}},
		{"images-count.yaml", "kyverno", "", []string{
			`images "ghcr.io/example/images/*": threshold 2 (Kyverno counts matching attestor entries: one certificate can match several identities)`,
		}},
		{"images-keyless.yaml", "policy-controller", "", []string{
			`trusted root "test-sigstore": validity ends of certificate authority https://fulcio.test.invalid`,
			`trusted root "test-sigstore": a signed timestamp is required`,
			`trusted root "test-sigstore": a transparency log entry is required`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.policy+"/"+tt.target, func(t *testing.T) {
			p, o := load(t, tt.policy)
			o.For = tt.target
			if tt.ref != "" {
				o.Ref = ref(t, tt.ref)
			}
			_, err := policyexport.Export(context.Background(), p, o)
			if !errors.Is(err, policyexport.ErrInexpressible) || !errors.Is(err, errdef.ErrInvalidArgument) {
				t.Fatalf("want ErrInexpressible (invalid argument), got %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not name %q:\n%v", w, err)
				}
			}
			if n := strings.Count(err.Error(), "\n  - "); n < len(tt.want) {
				t.Errorf("lists %d items, want at least %d", n, len(tt.want))
			}
		})
	}
}

// TestExportUsage: the mistakes of the command line.
func TestExportUsage(t *testing.T) {
	tests := []struct {
		policy, target, ref, want string
	}{
		{"strict.yaml", "flux", "", `2 scopes (scope "registry.example.com/addons", scope "registry.example.com/addons/critical")`},
		{"keys.yaml", "flux", "ghcr.io/other/x:1", "no scope of the policy applies"},
		{"keys.yaml", "kyverno", "", "no images section"},
		{"keys.yaml", "helm", "", `--for "helm"`},
		{"images.yaml", "kyverno", "ghcr.io/example/app:1", "--ref is for --for flux"},
		{"keys.yaml", "argocd", "registry.example.com/addons/x:1", "--ref is for --for flux"},
	}
	for _, tt := range tests {
		t.Run(tt.policy+"/"+tt.target, func(t *testing.T) {
			p, o := load(t, tt.policy)
			o.For = tt.target
			if tt.ref != "" {
				o.Ref = ref(t, tt.ref)
			}
			_, err := policyexport.Export(context.Background(), p, o)
			if !errors.Is(err, errdef.ErrInvalidArgument) || errors.Is(err, policyexport.ErrInexpressible) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an invalid argument saying %q", err, tt.want)
			}
		})
	}
}

// TestWriteDir: each file carries the lost items' comments; an existing
// file is refused (ErrExists) and nothing is written, unless force.
func TestWriteDir(t *testing.T) {
	p, o := load(t, "images.yaml")
	o.For, o.Lossy = "policy-controller", true
	res, err := policyexport.Export(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := res.WriteDir(dir, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "policy-controller.yaml"))
	if !bytes.HasPrefix(got, []byte("# addonpack: not enforced by policy-controller: ")) || !bytes.Equal(got, res.Stream()) {
		t.Errorf("the file is not the stream with its header:\n%s", got)
	}
	os.WriteFile(filepath.Join(dir, "policy-controller.yaml"), []byte("mine"), 0o644)
	if err := res.WriteDir(dir, false); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("an existing file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "policy-controller.yaml")); string(b) != "mine" {
		t.Error("a refused WriteDir wrote")
	}
	if err := res.WriteDir(dir, true); err != nil {
		t.Fatal(err)
	}
}

// TestFluxInsecure: Flux is told insecure: true for a registry addonpack
// reaches over plain HTTP — on loopback, or any with --plain-http — and for
// no other.
func TestFluxInsecure(t *testing.T) {
	raw := []byte("apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\nkeys: [{name: release, path: release.pub}]\nscopes: [{keys: [release]}]\n")
	path := filepath.Join("testdata", "policies", "inline.yaml")
	p, err := verify.ParsePolicy(context.Background(), raw, path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ref       string
		plainHTTP bool
		want      bool
	}{
		{"localhost:5000/addons/hello:0.1.0", false, true},
		{"127.0.0.1:5000/addons/hello:0.1.0", false, true},
		{"[::1]:5000/addons/hello:0.1.0", false, true},
		{"registry.example.com/addons/hello:0.1.0", false, false},
		{"registry.example.com/addons/hello:0.1.0", true, true},
	} {
		res, err := policyexport.Export(context.Background(), p, policyexport.Options{For: "flux", Ref: ref(t, tt.ref), PlainHTTP: tt.plainHTTP, Policy: raw, File: path})
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(res.Stream(), []byte("\n  insecure: true\n")); got != tt.want {
			t.Errorf("%s (--plain-http %v): insecure %v, want %v\n%s", tt.ref, tt.plainHTTP, got, tt.want, res.Stream())
		}
	}
}

// TestWriteOutput: "-" writes the stream to stdout; a directory gets the
// files and a line on msgs.
func TestWriteOutput(t *testing.T) {
	res := &policyexport.Result{Files: []policyexport.File{{Name: "a.yaml", Data: []byte("a: 1\n")}, {Name: "b.yaml", Data: []byte("b: 2\n")}}}
	var out, msgs bytes.Buffer
	if err := res.WriteOutput(&out, &msgs, "-", false); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(res.Stream()) || msgs.Len() != 0 {
		t.Fatalf("stdout %q, msgs %q; want the stream", out.String(), msgs.String())
	}
	out.Reset()
	dir := filepath.Join(t.TempDir(), "out")
	if err := res.WriteOutput(&out, &msgs, dir, false); err != nil {
		t.Fatal(err)
	}
	if want := "Wrote 2 files to " + dir + "\n"; out.Len() != 0 || msgs.String() != want {
		t.Fatalf("stdout %q, msgs %q; want %q", out.String(), msgs.String(), want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.yaml")); err != nil || string(b) != "b: 2\n" {
		t.Fatalf("b.yaml: %q, %v", b, err)
	}
}

// TestFluxBindingNote: every Flux export opens with the line saying that
// Flux checks the signature but not addonpack's reference binding (the
// signed name and version are the reference's: specs/artifact.md 11.6),
// in the stream and in the file -o writes; the other targets have none.
func TestFluxBindingNote(t *testing.T) {
	const note = "# addonpack: Flux checks the signature, not that the signed add-on's name and version are those of the reference (specs/artifact.md 11.6); verify with addonpack before you change --ref\n"
	for _, tt := range []struct{ policy, target, ref string }{
		{"keys.yaml", "flux", "registry.example.com/addons/hello:0.1.0"},
		{"keys.yaml", "flux", ""},
		{"strict.yaml", "flux", "registry.example.com/addons/critical/dns:1.0.0"},
		{"images.yaml", "kyverno", ""},
	} {
		p, o := load(t, tt.policy)
		o.For, o.Lossy = tt.target, true
		if tt.ref != "" {
			o.Ref = ref(t, tt.ref)
		}
		res, err := policyexport.Export(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.HasPrefix(res.Stream(), []byte(note)); got != (tt.target == "flux") {
			t.Errorf("%s --for %s: opens with the note %v:\n%s", tt.policy, tt.target, got, res.Stream())
		}
		dir := t.TempDir()
		if err := res.WriteDir(dir, false); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, res.Files[0].Name))
		if !bytes.Equal(b, res.Stream()) {
			t.Errorf("%s --for %s: the file is not the stream:\n%s", tt.policy, tt.target, b)
		}
	}
}

// TestWriteDirWhole: a failure on the second file leaves no file of the
// set (the Argo CD export is three files applied together), and --force
// replaces a symlink at a name instead of writing through it.
func TestWriteDirWhole(t *testing.T) {
	res := &policyexport.Result{Files: []policyexport.File{{Name: "a.yaml", Data: []byte("a: 1\n")}, {Name: "b.yaml", Data: []byte("b: 2\n")}}}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "b.yaml", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteDir(dir, true); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.yaml written though b.yaml failed (%v)", err)
	}

	dir, victim := t.TempDir(), filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	if err := os.Symlink(victim, filepath.Join(dir, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteDir(dir, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("--force wrote through the symlink: its target holds %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "a.yaml")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a.yaml: %v, %v; want a regular file", fi, err)
	}
}
