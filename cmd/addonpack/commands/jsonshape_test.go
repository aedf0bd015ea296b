package commands_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/fakekube"
	"github.com/addonpack/addonpack/testregistry"
)

// TestJSONShapes runs every command that prints data with --format json in
// the quick start's world and keeps the shape of what it prints — keys and
// value types, lists merged over their elements — in a golden file
// (testdata/json-shapes.golden; -update rewrites it). specs/cli-output.md
// describes the same shapes; a change here is a change of the CLI's contract.
func TestJSONShapes(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	reg := testregistry.New(t)
	_, port, _ := strings.Cut(reg.Host(), ":")
	host := "localhost:" + port
	env := map[string]string{"HOME": t.TempDir()}
	world := helpWorld(t, env, host)
	env["KUBECONFIG"] = fakekube.New(t).Kubeconfig(t, env["HOME"])
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(world)); err != nil {
		t.Fatal(err)
	}
	// The example pair whose config type changed (conversion reports), and
	// the add-on with profiles.
	for _, ex := range []string{"greeter-v1", "greeter-v2", "cluster-autoscaler"} {
		if err := os.CopyFS(filepath.Join(dir, ex), os.DirFS(filepath.Join(wd, "..", "..", "..", "examples", ex))); err != nil {
			t.Fatal(err)
		}
	}
	helpTUFRepository(t, dir) // sigstore-root.json, for trusted-root inspect
	t.Chdir(dir)
	signEnv := map[string]string{"HOME": env["HOME"], "COSIGN_PASSWORD": "secret"}
	if r := run(t, env, "build", "./cluster-autoscaler", "-o", "autoscaler-layout"); r.code != 0 {
		t.Fatalf("build cluster-autoscaler: %+v", r)
	}
	ref := host + "/addons/hello:0.1.0"
	vetted := "apiVersion: addonpack.dev/v1alpha2\nkind: VerificationPolicy\nkeys:\n  - name: org\n    path: release.pub\nscopes:\n  - keys: [org]\n    requireVerificationSummary:\n      verifier: https://addonpack.dev/vet\n"
	if err := os.WriteFile("vetted-policy.yaml", []byte(vetted), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := []struct {
		env  map[string]string
		args []string
		name string // in the golden file; default shapeName(args)
	}{
		{env, []string{"version"}, ""},
		{env, []string{"init", "fresh"}, ""},
		{env, []string{"build", "./hello"}, ""},
		{signEnv, []string{"keygen", "--output-key-prefix", "other"}, ""},
		{signEnv, []string{"push", "./hello", ref, "--key", "release.key"}, ""},
		{env, []string{"inspect", ref}, ""},
		{env, []string{"inspect", "./autoscaler-layout"}, "inspect (an add-on with profiles)"},
		{env, []string{"verify", ref, "--key", "release.pub", "--require-provenance"}, ""},
		{env, []string{"verify", ref, host + "/addons/hello:0.2.0", "--key", "release.pub"}, ""},
		{env, []string{"pull", ref, "-o", "pulled", "--key", "release.pub"}, ""},
		{signEnv, []string{"sign", ref, "--key", "release.key", "-a", "team=dns"}, ""},
		{signEnv, []string{"attest", ref, "--key", "release.key", "--predicate", "sbom.spdx.json", "--type", "spdxjson"}, ""},
		{signEnv, []string{"vet", ref, "--policy", "policy.yaml", "--key", "release.key"}, ""},
		{env, []string{"verify", ref, "--policy", "vetted-policy.yaml"}, "verify REF (a policy requiring a verification summary)"},
		{env, []string{"copy", ref, host + "/mirror/hello", "--key", "release.pub"}, ""},
		{env, []string{"mirror", "mirror.yaml"}, ""},
		{env, []string{"config", "defaults", ref, "--key", "release.pub"}, ""},
		{env, []string{"config", "versions", ref, "--key", "release.pub"}, ""},
		{env, []string{"config", "convert", ref, "--key", "release.pub", "--values", "my-hello.yaml"}, ""},
		{env, []string{"config", "convert", "./greeter-v2", "--values", "greeter-v1/config/custom.yaml"}, "config convert (an older version)"},
		{env, []string{"config", "check-upgrade", ref, "./hello", "--key", "release.pub"}, ""},
		{env, []string{"render", ref, "--key", "release.pub"}, ""},
		{env, []string{"preflight", ref, "--key", "release.pub", "--as", "alice", "--as-group", "dev"}, ""},
		{env, []string{"diff", "./greeter-v1", "./greeter-v2", "--values", "greeter-v1/config/custom.yaml"}, ""},
		{env, []string{"versions", host + "/addons/hello"}, ""},
		{env, []string{"lock", "addons.yaml", "--key", "release.pub"}, ""},
		{env, []string{"upgrade", "plan", "--stack", "addons.yaml", "--key", "release.pub"}, "upgrade plan (up to date; TestUpgradePlan has a candidate)"},
		{env, []string{"prune", host + "/addons/hello", "--keep", "1"}, ""},
		{env, []string{"trusted-root", "inspect", "sigstore-root.json"}, "trusted-root inspect"},
	}
	var b strings.Builder
	for _, c := range cmds {
		r := run(t, c.env, append(c.args, "--format", "json")...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", c.args, r)
		}
		var v any
		if err := json.Unmarshal([]byte(r.out), &v); err != nil {
			t.Fatalf("%v --format json is not JSON: %v\n%s", c.args, err, r.out)
		}
		refs := slices.IndexFunc(c.args[1:], func(a string) bool { return strings.HasPrefix(a, "-") })
		if list, ok := v.([]any); c.args[0] == "verify" && (!ok || len(list) != refs) {
			t.Errorf("%v --format json: want a list with one entry per reference (specs/cli-output.md), got\n%s", c.args, r.out)
		}
		if c.args[0] == "render" {
			// The items are the add-on's own objects: only what every
			// Kubernetes object has is the CLI's shape.
			v.(map[string]any)["items"] = []any{map[string]any{"apiVersion": "", "kind": "", "metadata": map[string]any{"name": ""}}}
		}
		name := c.name
		if name == "" {
			name = shapeName(c.args)
		}
		fmt.Fprintf(&b, "## addonpack %s\n%s\n\n", name, shape(v, ""))
	}
	t.Chdir(wd)
	golden(t, "json-shapes.golden", b.String())
}

// shapeName names a command line in the golden file.
func shapeName(args []string) string {
	switch {
	case args[0] == "config":
		return "config " + args[1]
	case args[0] == "verify" && !strings.HasPrefix(args[2], "-"):
		return "verify REF REF..."
	case args[0] == "verify":
		return "verify REF"
	}
	return args[0]
}

// shape describes v's structure: object keys (sorted) with the shape of
// their values, list element shapes merged, scalars by type.
func shape(v any, indent string) string {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s  %s: %s\n", indent, k, shape(x[k], indent+"  "))
		}
		b.WriteString(indent + "}")
		return b.String()
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		merged := x[0]
		for _, e := range x[1:] {
			merged = merge(merged, e)
		}
		return "[" + shape(merged, indent) + "]"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// merge unions the keys of two objects (recursively), so a list's shape
// shows every key any element has.
func merge(a, b any) any {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		return a
	}
	out := map[string]any{}
	for k, v := range ma {
		out[k] = v
	}
	for k, v := range mb {
		if old, ok := out[k]; ok {
			out[k] = merge(old, v)
		} else {
			out[k] = v
		}
	}
	return out
}
