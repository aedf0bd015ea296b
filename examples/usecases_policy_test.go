package examples_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/testregistry"
)

// ---------------------------------------------------------------------------
// (b) the enterprise consumer's policy

func TestUseCasePolicy(t *testing.T) {
	raw, err := os.ReadFile("policies/two-of-three.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The committed policy: valid per the schema, the shape the README describes.
	validatePolicySchema(t, raw)
	var pol struct {
		Keys []struct {
			Name, Path, PublicKey, Ref string
		} `json:"keys"`
		Scopes []struct {
			Prefix     string   `json:"prefix"`
			Keys       []string `json:"keys"`
			Threshold  int      `json:"threshold"`
			Provenance struct {
				Required           bool     `json:"required"`
				SourceRepositories []string `json:"sourceRepositories"`
				BuilderIDs         []string `json:"builderIds"`
			} `json:"provenance"`
		} `json:"scopes"`
	}
	if err := sigsyaml.Unmarshal(raw, &pol); err != nil {
		t.Fatal(err)
	}
	if len(pol.Keys) != 3 || len(pol.Scopes) != 1 {
		t.Fatalf("want three keys and one scope: %+v", pol)
	}
	s := pol.Scopes[0]
	if s.Prefix != "registry.example.com/addons" || len(s.Keys) != 3 || s.Threshold != 2 || !s.Provenance.Required ||
		!slices.Equal(s.Provenance.SourceRepositories, []string{"https://github.com/example/addons"}) {
		t.Errorf("scope: %+v", s)
	}
	for _, k := range pol.Keys {
		if !strings.HasPrefix(k.Path, "keys/") || !strings.HasSuffix(k.Path, ".pub") {
			t.Errorf("key %s: want a public key file under keys/, got %q", k.Name, k.Path)
		}
	}
	noPrivateKeys(t, "policies")

	// The README's walkthrough, as written.
	reg := testregistry.New(t)
	dir := t.TempDir()
	copyFile(t, "policies/two-of-three.yaml", filepath.Join(dir, "two-of-three.yaml"))
	env := []string{"REGISTRY=" + reg.Host()}
	results := runDocCommands(t, "policies/README.md", dir, env)

	// Each refusal fails for the documented reason.
	reasons := []string{
		"signature threshold not met: 1 of the required 2",
		"signature threshold not met: 1 of the required 2",
		`source ["git+https://github.com/mallory/addons"] is not one of ["https://github.com/example/addons"]`,
		"no policy applies",
	}
	var refused []docResult
	for _, r := range results {
		if r.want != 0 {
			refused = append(refused, r)
		}
	}
	if len(refused) != len(reasons) {
		t.Fatalf("README documents %d refusals, the test expects %d", len(refused), len(reasons))
	}
	for i, r := range refused {
		if r.want != 9 || !strings.Contains(r.stderr, reasons[i]) {
			t.Errorf("README line %d (exit %d): stderr does not say %q:\n%s", r.line, r.want, reasons[i], r.stderr)
		}
	}
	// The render that passed produced the add-on with the consumer's change.
	rendered, err := os.ReadFile(filepath.Join(dir, "hello.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs := parseObjects(t, rendered)
	if kinds := kindsOf(objs); !slices.Equal(kinds, []string{"Deployment", "Namespace", "Service", "ServiceAccount"}) {
		t.Errorf("rendered kinds %v", kinds)
	}
	// The render's verification is remembered: verify answers from the
	// cache, saying so; afresh (--no-cache) the verdict in data form names
	// the two signers and the provenance.
	home := []string{"HOME=" + filepath.Join(dir, "home")}
	out, code := addonpack(t, dir, home, "verify", reg.Host()+"/addons/hello:0.1.0", "--policy", "policy.yaml", "--format", "json")
	if code != 0 || !strings.Contains(out, `"cached": true`) {
		t.Errorf("verify --format json after render: exit %d\n%s", code, out)
	}
	out, code = addonpack(t, dir, home, "verify", reg.Host()+"/addons/hello:0.1.0", "--policy", "policy.yaml", "--format", "json", "--no-cache")
	if code != 0 || !strings.Contains(out, `"threshold": 2`) || strings.Count(out, `"sha256:`) < 2 {
		t.Errorf("verify --format json --no-cache: exit %d\n%s", code, out)
	}
}

func validatePolicySchema(t *testing.T, raw []byte) {
	t.Helper()
	var doc any
	if err := sigsyaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// Round-trip through JSON so numbers are what the validator expects.
	j, _ := json.Marshal(doc)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../specs/schemas/policy.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("two-of-three.yaml does not match specs/schemas/policy.schema.json: %v", err)
	}
}

// noPrivateKeys fails if a private key is committed under dir.
func noPrivateKeys(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".key") || bytes.Contains(b, []byte("PRIVATE KEY-----")) {
			t.Errorf("%s: private key material in the examples", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
