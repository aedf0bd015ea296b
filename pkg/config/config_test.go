package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

const schemaYAML = `type: object
properties:
  replicas: {type: integer, minimum: 1, default: 1}
  upstreams: {type: array, items: {type: string}, default: ["/etc/resolv.conf"]}
  cache:
    type: object
    default: {}
    properties:
      ttl: {type: integer, minimum: 0, maximum: 3600, default: 30}
  nodeLocal:
    type: object
    properties:
      enabled: {type: boolean, default: false}
`

const defaultsYAML = `apiVersion: dns.example.com/v1alpha1
kind: DNSConfig
metadata: {name: dns}
spec:
  replicas: 2
  upstreams: [8.8.8.8, 1.1.1.1]
`

func loadType(t *testing.T) *config.Type {
	t.Helper()
	files := fstest.MapFS{
		"config/schema.yaml":   {Data: []byte(schemaYAML)},
		"config/defaults.yaml": {Data: []byte(defaultsYAML)},
	}
	a := &spec.Addon{Metadata: spec.Metadata{Name: "dns"}, Spec: spec.AddonSpec{Config: &spec.Config{
		APIVersion: "dns.example.com/v1alpha1", Kind: "DNSConfig", Schema: "config/schema.yaml", Defaults: "config/defaults.yaml",
		Components: []spec.Component{{Path: "components/nodelocal", When: "nodeLocal.enabled"}},
	}}}
	typ, err := config.Load(context.Background(), files, a, schema.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

func TestResolveDefaults(t *testing.T) {
	r, err := loadType(t).Resolve(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "apiVersion: dns.example.com/v1alpha1\nkind: DNSConfig\nmetadata:\n  name: dns\nspec:\n  cache:\n    ttl: 30\n  replicas: 2\n  upstreams:\n  - 8.8.8.8\n  - 1.1.1.1\n"
	if string(r.Object) != want {
		t.Fatalf("object:\n%s\nwant\n%s", r.Object, want)
	}
	if len(r.Components) != 0 {
		t.Fatalf("components enabled by default: %v", r.Components)
	}
}

func TestResolveValues(t *testing.T) {
	values := "apiVersion: dns.example.com/v1alpha1\nkind: DNSConfig\nspec:\n  upstreams: [9.9.9.9]\n  nodeLocal: {enabled: true}\n"
	r, err := loadType(t).Resolve([]byte(values), "values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(r.Object)
	// User lists replace, user maps merge over defaults, schema defaults fill the rest.
	for _, want := range []string{"replicas: 2", "- 9.9.9.9", "ttl: 30", "enabled: true"} {
		if !strings.Contains(s, want) {
			t.Errorf("object lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "8.8.8.8") {
		t.Errorf("a user list did not replace the default list:\n%s", s)
	}
	if len(r.Components) != 1 || r.Components[0] != "components/nodelocal" {
		t.Errorf("components = %v", r.Components)
	}
}

func TestResolveListsEveryError(t *testing.T) {
	values := "apiVersion: dns.example.com/v1alpha1\nkind: DNSConfig\nspec:\n  replicas: 0\n  upstreams: [1, two]\n  cache: {ttl: 9999}\n"
	_, err := loadType(t).Resolve([]byte(values), "values.yaml")
	if !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"values.yaml: does not validate", "spec.replicas: must be >= 1", "spec.upstreams[0]", "spec.cache.ttl: must be <= 3600"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestResolveRefusals(t *testing.T) {
	typ := loadType(t)
	for name, tc := range map[string]struct{ values, want string }{
		"wrong kind":        {"apiVersion: dns.example.com/v1alpha1\nkind: Other\nspec: {}\n", "kind"},
		"wrong apiVersion":  {"apiVersion: dns.example.com/v2\nkind: DNSConfig\nspec: {}\n", "apiVersion"},
		"unknown top field": {"apiVersion: dns.example.com/v1alpha1\nkind: DNSConfig\nspec: {}\nstatus: {}\n", "status"},
		"switch not bool":   {"apiVersion: dns.example.com/v1alpha1\nkind: DNSConfig\nspec: {nodeLocal: {enabled: \"yes please\"}}\n", "nodeLocal.enabled"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := typ.Resolve([]byte(tc.values), "values.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "values.yaml") {
				t.Fatalf("got %v, want an error naming values.yaml and %q", err, tc.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	base := map[string]any{"a": map[string]any{"x": 1, "y": 2}, "l": []any{1, 2}}
	over := map[string]any{"a": map[string]any{"y": 3}, "l": []any{9}}
	got := config.Merge(base, over).(map[string]any)
	if a := got["a"].(map[string]any); a["x"] != 1 || a["y"] != 3 {
		t.Errorf("maps not merged: %v", got)
	}
	if l := got["l"].([]any); len(l) != 1 || l[0] != 9 {
		t.Errorf("list not replaced: %v", got)
	}
	if base["a"].(map[string]any)["y"] != 2 {
		t.Error("Merge modified its input")
	}
}

func TestLoadHello(t *testing.T) {
	data, err := os.ReadFile("../../examples/hello/addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := spec.ParseAddon(data, "addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	typ, err := config.Load(context.Background(), os.DirFS("../../examples/hello"), a, schema.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := typ.Resolve(nil, ""); err != nil {
		t.Fatal(err)
	}
}

// TestProfilesOf: the profiles read from addon.yaml and the canonical
// schema alone (an artifact's config blob, for inspect) are those of the
// loaded type; an add-on without profiles has none.
func TestProfilesOf(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		want string
	}{
		{"../../examples/cluster-autoscaler", `[{"name":"provider-aws_kubernetes-1.29.0","fields":{"provider":"aws"},"kubernetes":"1.29.0"},` +
			`{"name":"provider-aws_kubernetes-1.30.0","fields":{"provider":"aws"},"kubernetes":"1.30.0"},` +
			`{"name":"provider-gcp_kubernetes-1.29.0","fields":{"provider":"gcp"},"kubernetes":"1.29.0"},` +
			`{"name":"provider-gcp_kubernetes-1.30.0","fields":{"provider":"gcp"},"kubernetes":"1.30.0"}]`},
		{"../../examples/hello", "null"},
		{"../../examples/greeter-v2", "null"},
	} {
		data, err := os.ReadFile(filepath.Join(tt.dir, "addon.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		a, err := spec.ParseAddon(data, "addon.yaml")
		if err != nil {
			t.Fatal(err)
		}
		typ, err := config.Load(context.Background(), os.DirFS(tt.dir), a, schema.DefaultLimits(), nil)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := typ.Profiles()
		if err != nil {
			t.Fatal(err)
		}
		got, err := config.ProfilesOf(context.Background(), a, typ.Schema.JSON(), schema.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", tt.dir, err)
		}
		g, _ := json.Marshal(got)
		l, _ := json.Marshal(loaded)
		if string(g) != tt.want || string(l) != tt.want {
			t.Errorf("%s: ProfilesOf %s, Type.Profiles %s, want %s", tt.dir, g, l, tt.want)
		}
	}
	// A broken when is refused, naming the field, as Load refuses it.
	a := &spec.Addon{APIVersion: "addonpack.dev/v1alpha2", Spec: spec.AddonSpec{Config: &spec.Config{APIVersion: "x.example.com/v1", Kind: "X", Schema: "s.json",
		Components: []spec.Component{{Path: "c", When: "provider in [mars]"}}}}}
	if _, err := config.ProfilesOf(context.Background(), a, []byte(`{"type":"object","properties":{"provider":{"type":"string","enum":["aws"]}}}`), schema.DefaultLimits()); err == nil ||
		!strings.Contains(err.Error(), "spec.config.components[0].when") {
		t.Fatalf("unknown enum value: %v", err)
	}
}

// TestReadValues: a values file, standard input for "-", none for "";
// more than config.MaxValuesSize bytes is refused as a usage error, naming it.
func TestReadValues(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v.yaml")
	os.WriteFile(file, []byte("spec: {}\n"), 0o644)
	for _, tc := range []struct {
		path, stdin, want, name string
		err                     bool
	}{
		{"", "", "", "", false},
		{file, "", "spec: {}\n", file, false},
		{"-", "spec: {a: 1}\n", "spec: {a: 1}\n", "<stdin>", false},
		{"-", strings.Repeat("x", config.MaxValuesSize+1), "", "", true},
		{filepath.Join(t.TempDir(), "missing.yaml"), "", "", "", true},
	} {
		b, name, err := config.ReadValues(tc.path, strings.NewReader(tc.stdin))
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), "values") {
				t.Errorf("%q: %v, want an error naming the values", tc.path, err)
			}
			continue
		}
		if err != nil || string(b) != tc.want || name != tc.name {
			t.Errorf("%q: %q %q %v", tc.path, b, name, err)
		}
	}
	if _, _, err := config.ReadValues("-", strings.NewReader(strings.Repeat("x", config.MaxValuesSize+1))); errdef.ClassOf(err) != errdef.ErrInvalidArgument {
		t.Errorf("oversized stdin: class %v, want invalid argument", errdef.ClassOf(err))
	}
}
