package upgrade

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

const (
	modesV1alpha1 = "type: object\nproperties:\n  mode: {type: string, enum: [fast, safe, legacy]}\n  message: {type: string}\nadditionalProperties: false\n"
	modesV1beta1  = "type: object\nproperties:\n  mode: {type: string, enum: [fast, safe]}\n  text: {type: string}\nadditionalProperties: false\n"
	modesPrev     = `apiVersion: addonpack.dev/v1alpha2
kind: Addon
metadata: {name: modes}
spec:
  version: 0.1.0
  description: modes
  config: {apiVersion: modes.example.com/v1alpha1, kind: ModeConfig, schema: config/schema.yaml}
`
	modesNext = `apiVersion: addonpack.dev/v1alpha2
kind: Addon
metadata: {name: modes}
spec:
  version: 0.2.0
  description: modes
  config:
    apiVersion: modes.example.com/v1beta1
    kind: ModeConfig
    schema: config/schema.yaml
    conversion:
      versions:
        - apiVersion: modes.example.com/v1alpha1
          schema: config/v1alpha1.yaml
          to: modes.example.com/v1beta1
          rules:
            - rename: {path: message, to: text}
RULES`
)

func modesRelease(t *testing.T, name, addon string, files fstest.MapFS) Release {
	t.Helper()
	a, err := spec.ParseAddon([]byte(addon), name+"/addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	typ, err := config.Load(context.Background(), files, a, schema.DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return Release{Name: name, Addon: a, Type: typ, Files: files}
}

// TestCheckEnumValueRemoved: a release that drops an enum value fails the
// gate naming the field and the value, until a rule maps the old value.
// Released without the gate, it refuses an old values file holding the
// value at render time, naming the file, the conversion, the field and the
// values allowed now.
func TestCheckEnumValueRemoved(t *testing.T) {
	prev := modesRelease(t, "modes:0.1.0", modesPrev, fstest.MapFS{"config/schema.yaml": {Data: []byte(modesV1alpha1)}})
	nextFiles := fstest.MapFS{"config/schema.yaml": {Data: []byte(modesV1beta1)}, "config/v1alpha1.yaml": {Data: []byte(modesV1alpha1)}}

	next := modesRelease(t, "./modes", strings.Replace(modesNext, "RULES", "", 1), nextFiles)
	r, err := Check(prev, next)
	if err == nil || r == nil || len(r.Problems) != 1 ||
		!strings.HasPrefix(r.Problems[0], `spec.mode: enum no longer allows "legacy", and nothing covers it: add a conversion rule`) {
		t.Fatalf("Check: %v\n%+v", err, r)
	}
	if c := r.Changes; len(c) != 2 || c[0].Kind != "removed" || c[0].CoveredBy != "rule rename message → text" ||
		c[1].Kind != "constraint" || c[1].Constraint != "enum" || c[1].Path != "mode" || c[1].CoveredBy != "" {
		t.Errorf("changes %+v", c)
	}

	old := "apiVersion: modes.example.com/v1alpha1\nkind: ModeConfig\nspec:\n  mode: legacy\n  message: hi\n"
	_, err = next.Type.Resolve([]byte(old), "my-values.yaml")
	want := "my-values.yaml (converted v1alpha1 → v1beta1): does not validate against config/schema.yaml:\nspec.mode: must be one of: \"fast\", \"safe\""
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("render-time resolve: %v\nwant %s", err, want)
	}

	mapped := "            - if: \"has(spec.mode) && spec.mode == 'legacy'\"\n              set: {path: mode, expression: \"'safe'\"}\n"
	next = modesRelease(t, "./modes", strings.Replace(modesNext, "RULES", mapped, 1), nextFiles)
	r, err = Check(prev, next)
	if err != nil || len(r.Changes) != 2 || r.Changes[1].CoveredBy != "rule set mode = 'safe' (if has(spec.mode) && spec.mode == 'legacy')" {
		t.Fatalf("Check with the rule: %v\n%+v", err, r)
	}
	if res, err := next.Type.Resolve([]byte(old), "my-values.yaml"); err != nil || res.Spec.(map[string]any)["mode"] != "safe" {
		t.Fatalf("render-time resolve with the rule: %v", err)
	}
}
