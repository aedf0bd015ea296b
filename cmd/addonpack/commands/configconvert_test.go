package commands_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// oldValues is a values file written for greeter 0.1.0 (v1alpha1).
const oldValues = "apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nmetadata:\n  name: mine\nspec:\n  message: hi from 0.1.0\n"

// TestConfigConversion publishes the example pair greeter 0.1.0 and 0.2.0,
// whose config type changed incompatibly, and feeds a 0.1.0 values file to
// every consumer: each converts it, says so on stderr, and renders it.
func TestConfigConversion(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	env := map[string]string{"HOME": t.TempDir()}
	key := keyPair(t, filepath.Join(dir, "release"))
	v1, v2 := reg.Host()+"/addons/greeter:0.1.0", reg.Host()+"/addons/greeter:0.2.0"
	for src, ref := range map[string]string{"greeter-v1": v1, "greeter-v2": v2} {
		if r := run(t, signEnv, "push", filepath.Join("..", "..", "..", "examples", src), ref, "--key", key+".key"); r.code != 0 {
			t.Fatalf("push %s: %+v", src, r)
		}
	}
	values := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(values, []byte(oldValues), 0o644); err != nil {
		t.Fatal(err)
	}
	pub := key + ".pub"
	const converted = "old.yaml: converted v1alpha1 → v1beta1\n"

	r := run(t, env, "config", "versions", v2, "--key", pub, "--format", "json")
	var versions struct {
		Current, Kind string
		Versions      []string
	}
	if err := json.Unmarshal([]byte(r.out), &versions); r.code != 0 || err != nil ||
		strings.Join(versions.Versions, " ") != "greeter.addons.example.com/v1alpha1 greeter.addons.example.com/v1beta1" || versions.Current != "greeter.addons.example.com/v1beta1" {
		t.Fatalf("config versions: %+v (%v)", r, err)
	}
	if r := run(t, env, "config", "versions", v1, "--key", pub); r.code != 0 || r.out != "greeter.addons.example.com/v1alpha1, Kind=GreeterConfig (current)\n" {
		t.Fatalf("config versions of 0.1.0: %+v", r)
	}

	r = run(t, env, "config", "convert", v2, "--key", pub, "--values", values)
	want := "apiVersion: greeter.addons.example.com/v1beta1\nkind: GreeterConfig\nmetadata:\n  name: mine\nspec:\n  greeting:\n    text: hi from 0.1.0\n"
	if r.code != 0 || r.out != want || !strings.HasSuffix(r.err, converted) {
		t.Fatalf("config convert: %+v\nwant %s", r, want)
	}
	out := filepath.Join(dir, "new.yaml")
	if r := run(t, env, "config", "convert", v2, "--key", pub, "--values", values, "-o", out); r.code != 0 || r.out != "" {
		t.Fatalf("config convert -o: %+v", r)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != want {
		t.Fatalf("-o FILE holds %q (%v)", b, err)
	}
	r = run(t, env, "config", "convert", v2, "--key", pub, "--values", values, "--format", "json")
	var report struct {
		Object     map[string]any
		Conversion []struct {
			From, To string
			Rules    []string
		}
	}
	if err := json.Unmarshal([]byte(r.out), &report); r.code != 0 || err != nil || len(report.Conversion) != 1 ||
		strings.Join(report.Conversion[0].Rules, ";") != "move message → greeting.text" || report.Object["apiVersion"] != "greeter.addons.example.com/v1beta1" {
		t.Fatalf("config convert --format json: %+v (%v)", r, err)
	}
	// The converted object is of the current version: converting it again
	// does nothing, and says nothing.
	if r := run(t, env, "config", "convert", v2, "--key", pub, "--values", out); r.code != 0 || r.out != want || r.err != "" {
		t.Fatalf("config convert of a current object: %+v", r)
	}

	r = run(t, env, "render", v2, "--key", pub, "--values", values)
	if r.code != 0 || !strings.Contains(r.out, "value: hi from 0.1.0") || !strings.HasSuffix(r.err, converted) {
		t.Fatalf("render: %+v", r)
	}
	r = run(t, env, "diff", v1, v2, "--key", pub, "--values", values)
	if r.code != 0 || !strings.Contains(r.out, "+        - name: GREETING_LANGUAGE") || strings.Contains(r.out, "+          value: hi from 0.1.0") || !strings.HasSuffix(r.err, converted) {
		t.Fatalf("diff: %+v", r)
	}
	// diff --format json lists, per side, the rules applied; 0.1.0 reads
	// the object as it is. --exit-code still exits 1 after printing it.
	r = run(t, env, "diff", v1, v2, "--key", pub, "--values", values, "--format", "json", "--exit-code")
	type step struct {
		From, To string
		Rules    []string
	}
	var d struct {
		A, B struct {
			Source     string
			Conversion []step
		}
		Differ bool
		Diff   string
	}
	if err := json.Unmarshal([]byte(r.out), &d); r.code != 1 || err != nil || !strings.Contains(r.err, converted) {
		t.Fatalf("diff -o json --exit-code: %+v (%v)", r, err)
	}
	wantStep := step{"greeter.addons.example.com/v1alpha1", "greeter.addons.example.com/v1beta1", []string{"move message → greeting.text"}}
	if d.A.Conversion != nil || len(d.B.Conversion) != 1 || fmt.Sprint(d.B.Conversion[0]) != fmt.Sprint(wantStep) ||
		!strings.HasPrefix(d.A.Source, reg.Host()+"/addons/greeter@sha256:") || !strings.HasPrefix(d.B.Source, reg.Host()+"/addons/greeter@sha256:") || d.A.Source == d.B.Source ||
		!d.Differ || !strings.Contains(d.Diff, "+        - name: GREETING_LANGUAGE") {
		t.Fatalf("diff -o json: %+v\n%s", d, r.out)
	}
	// The same side twice: no differences, both sides converted.
	r = run(t, env, "diff", v2, v2, "--key", pub, "--values", values, "--format", "json", "--exit-code")
	d.A.Conversion, d.B.Conversion, d.Diff = nil, nil, ""
	if err := json.Unmarshal([]byte(r.out), &d); r.code != 0 || err != nil || d.Differ || d.Diff != "" ||
		len(d.A.Conversion) != 1 || fmt.Sprint(d.A.Conversion[0]) != fmt.Sprint(wantStep) || fmt.Sprint(d.A.Conversion) != fmt.Sprint(d.B.Conversion) {
		t.Fatalf("diff -o json of one release with itself: %+v (%v)", r, err)
	}

	// A newer object, an unknown version, a conversion that needs a person.
	for _, tt := range []struct{ values, want string }{
		{strings.Replace(oldValues, "v1alpha1", "v1", 1), `apiVersion "greeter.addons.example.com/v1" is newer than the config version of this add-on, "greeter.addons.example.com/v1beta1": it converts only older versions up, never down`},
		{strings.Replace(oldValues, "v1alpha1", "v1alpha2", 1), `apiVersion: got "greeter.addons.example.com/v1alpha2", want one of "greeter.addons.example.com/v1alpha1", "greeter.addons.example.com/v1beta1"`},
		{strings.Replace(oldValues, "message: hi from 0.1.0", "replicas: 8", 1), "cannot convert v1alpha1 → v1beta1: spec.replicas above 5 is no longer supported"},
	} {
		if err := os.WriteFile(values, []byte(tt.values), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"render", v2}, {"config", "convert", v2}} {
			r := run(t, env, append(args, "--key", pub, "--values", values)...)
			if r.code != 3 || !strings.Contains(r.err, tt.want) {
				t.Errorf("%v: %+v, want exit 3 and %q", args, r, tt.want)
			}
		}
	}
	// 0.1.0 refuses a v1beta1 object as newer, rather than as merely wrong.
	if err := os.WriteFile(values, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, env, "render", v1, "--key", pub, "--values", values); r.code != 3 || !strings.Contains(r.err, `is newer than the config version of this add-on, "greeter.addons.example.com/v1alpha1"`) {
		t.Fatalf("0.1.0 with a v1beta1 object: %+v", r)
	}

	// A stack converts the values it gives an add-on too.
	if err := os.WriteFile(values, []byte(oldValues), 0o644); err != nil {
		t.Fatal(err)
	}
	stack := filepath.Join(dir, "addons.yaml")
	body := "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: " + reg.Host() + "/addons/greeter\n    version: \">=0.2.0, <1.0.0\"\n    values: old.yaml\n"
	if err := os.WriteFile(stack, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if r := run(t, env, "lock", "addons.yaml", "--key", pub); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	r = run(t, env, "render", "--stack", "addons.yaml", "--key", pub)
	if r.code != 0 || !strings.Contains(r.out, "value: hi from 0.1.0") || !strings.Contains(r.err, converted) {
		t.Fatalf("render --stack: %+v", r)
	}
}

// TestConfigCheckUpgradeVersion: check-upgrade finds the previous release
// with --version as a release pipeline does, and --allow-first-release
// passes only when there is no previous release: other failures still fail.
func TestConfigCheckUpgradeVersion(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	env := map[string]string{"HOME": t.TempDir()}
	key := keyPair(t, filepath.Join(dir, "release"))
	pub := key + ".pub"
	examples := filepath.Join("..", "..", "..", "examples")
	repo := reg.Host() + "/addons/greeter"
	if r := run(t, signEnv, "push", filepath.Join(examples, "greeter-v1"), repo+":0.1.0", "--key", key+".key"); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	v2 := filepath.Join(examples, "greeter-v2")
	other := keyPair(t, filepath.Join(dir, "other"))

	r := run(t, env, "config", "check-upgrade", repo, v2, "--version", "<0.2.0", "--allow-first-release", "--key", pub)
	if r.code != 0 || !strings.Contains(r.err, "resolved "+repo+":0.1.0@sha256:") || !strings.Contains(r.out, "rule move message → greeting.text") ||
		!strings.Contains(r.out, "can upgrade to "+v2) {
		t.Fatalf("check-upgrade --version <0.2.0: %+v", r)
	}
	// No version below 0.1.0: without the flag that is "not found"; with it,
	// a first release, in text and in JSON.
	if r := run(t, env, "config", "check-upgrade", repo, v2, "--version", "<0.1.0", "--key", pub); r.code != commands.ExitNotFound || !strings.Contains(r.err, `no version matches "<0.1.0"`) {
		t.Fatalf("no previous version without --allow-first-release: %+v", r)
	}
	r = run(t, env, "config", "check-upgrade", repo, v2, "--version", "<0.1.0", "--allow-first-release", "--key", pub)
	if r.code != 0 || !strings.HasPrefix(r.out, "no previous release: "+repo+`: no version matches "<0.1.0"`) || !strings.HasSuffix(r.out, ": nothing to check\n") {
		t.Fatalf("first release: %+v", r)
	}
	r = run(t, env, "config", "check-upgrade", reg.Host()+"/addons/brand-new", v2, "--version", "<0.2.0", "--allow-first-release", "--key", pub, "--format", "json")
	var report struct {
		Previous   string   `json:"previous"`
		NoPrevious string   `json:"noPrevious"`
		Changes    []any    `json:"changes"`
		Checked    []string `json:"checked"`
	}
	if err := json.Unmarshal([]byte(r.out), &report); r.code != 0 || err != nil || report.Previous != "" || report.Changes == nil || report.Checked == nil ||
		!strings.Contains(report.NoPrevious, "tags of "+reg.Host()+"/addons/brand-new: not found") {
		t.Fatalf("first release of a repository that does not exist: %+v (%v)", r, err)
	}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"without --version", []string{repo + ":0.1.0", v2, "--allow-first-release", "--key", pub}, commands.ExitUsage, "--allow-first-release needs --version"},
		{"a tag and a range", []string{repo + ":0.1.0", v2, "--version", "<0.1.0", "--allow-first-release", "--key", pub}, commands.ExitUsage, "without a tag or digest"},
		{"broken trust on a first release", []string{repo, v2, "--version", "<0.1.0", "--allow-first-release", "--key", filepath.Join(dir, "missing.pub")}, commands.ExitNotFound, "missing.pub"},
		{"unreachable registry", []string{"127.0.0.1:1/addons/greeter", v2, "--version", "<0.2.0", "--allow-first-release", "--key", pub}, commands.ExitUnreachable, "127.0.0.1:1"},
		{"previous release signed by another key", []string{repo, v2, "--version", "<0.2.0", "--allow-first-release", "--key", other + ".pub"}, commands.ExitVerify, repo},
	} {
		r := run(t, env, append([]string{"config", "check-upgrade"}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.err, tt.want) || strings.Contains(r.out, "no previous release") {
			t.Errorf("%s: %+v, want exit %d and %q", tt.name, r, tt.code, tt.want)
		}
	}
}

// keyPair writes PREFIX.key (password signEnv's) and PREFIX.pub and
// returns prefix.
func keyPair(t *testing.T, prefix string) string {
	t.Helper()
	if r := run(t, signEnv, "keygen", "--output-key-prefix", prefix); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	return prefix
}
