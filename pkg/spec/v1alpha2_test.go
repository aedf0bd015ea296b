package spec

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// v2Blob is a config blob of an addonpack.dev/v1alpha2 add-on with one
// older config version.
func v2Blob(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("../../specs/testdata/addon/valid/v1alpha2-conversion.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseAddon(src, "addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cb := ConfigBlob{Addon: *a, Schema: json.RawMessage(`{"type":"object"}`), Conversion: &ConversionBlob{Schemas: map[string]json.RawMessage{
		"hello.addons.example.com/v1alpha1": json.RawMessage(`{"type":"object"}`),
		"hello.addons.example.com/v1alpha2": json.RawMessage(`{"type":"object"}`),
	}}}
	if cb.MediaType() != ConfigMediaTypeV2 {
		t.Fatalf("a v1alpha2 blob is %q", cb.MediaType())
	}
	data, err := json.Marshal(cb)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseConfigBlobV2(t *testing.T) {
	data := v2Blob(t)
	cb, err := ParseConfigBlob(data, "ref config")
	if err != nil {
		t.Fatal(err)
	}
	if cb.Conversion == nil || len(cb.Conversion.Schemas) != 2 || cb.Addon.ConfigAPIVersions()[2] != "hello.addons.example.com/v1beta1" {
		t.Fatalf("decoded %+v", cb)
	}
	again, _ := json.Marshal(cb)
	if string(again) != string(data) {
		t.Fatalf("re-encoding changed the blob:\n%s\n%s", data, again)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"unknown top-level member", `,"conversion":{"schemas"`, `,"x":{"schemas"`, `unknown member "x"`},
		{"a schema missing", `"hello.addons.example.com/v1alpha1":{"type":"object"},`, ``, `conversion: schemas: "hello.addons.example.com/v1alpha1": must be a JSON object`},
		{"an extra schema", `"schemas":{`, `"schemas":{"hello.addons.example.com/v0":{},`, `must hold exactly the versions`},
		{"unknown member inside", `"schemas":{`, `"other":1,"schemas":{`, `unknown member "other"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(string(data), tt.from, tt.to, 1)
			if bad == string(data) {
				t.Fatal("mutation did nothing")
			}
			if _, err := ParseConfigBlob([]byte(bad), "ref config"); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
	// No conversion member where the add-on declares conversion.
	i := strings.Index(string(data), `,"conversion":{"schemas"`)
	if _, err := ParseConfigBlob([]byte(string(data[:i])+"}"), "ref config"); err == nil || !strings.Contains(err.Error(), "conversion: must be present exactly when") {
		t.Fatalf("got %v", err)
	}
	// A conversion member in a v1alpha1 blob.
	v1 := `{"addon":{"apiVersion":"addonpack.dev/v1alpha1","kind":"Addon","metadata":{"name":"hello"},"spec":{"version":"1.0.0","description":"x"}},"conversion":{"schemas":{}}}`
	if _, err := ParseConfigBlob([]byte(v1), "ref config"); err == nil || !strings.Contains(err.Error(), `unknown member "conversion"`) {
		t.Fatalf("got %v", err)
	}
}

// TestFirstVersionRefusesV2 runs a v1alpha2 artifact through the checks of
// the first format version, as an addonpack that knows only v1alpha1 runs
// them: the manifest is refused by its config media type, and, were the
// blob read anyway, the blob by its member and its addon by apiVersion. The
// messages are those of that version.
func TestFirstVersionRefusesV2(t *testing.T) {
	blob := v2Blob(t)
	d := func(mt string, content []byte) ocispec.Descriptor {
		return ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(content), Size: int64(len(content))}
	}
	m, _ := json.Marshal(NewManifest(d(ConfigMediaTypeV2, blob), d(ContentMediaType, []byte("tar")), nil))
	if _, err := ParseManifest(m, "r"); err != nil {
		t.Fatalf("this version refuses the v2 manifest: %v", err)
	}
	_, err := parseManifest(m, "reg/hello@sha256:x", []string{ConfigMediaType})
	want := `reg/hello@sha256:x manifest: config.mediaType: is "application/vnd.addonpack.addon.config.v2+json", want "application/vnd.addonpack.addon.config.v1+json"`
	if err == nil || err.Error() != want {
		t.Fatalf("first version's manifest check: got %v\nwant %s", err, want)
	}
	if _, err := members(blob, "addon", "schema"); err == nil || err.Error() != `unknown member "conversion"` {
		t.Fatalf("first version's blob members: got %v", err)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(blob, &raw)
	doc, err := decodeDocument(raw["addon"], "c addon")
	if err != nil {
		t.Fatal(err)
	}
	errs := validateAgainstSchema(doc, "c addon", APIVersion)
	if len(errs) == 0 || !strings.Contains(errs.Error(), "c addon: apiVersion: must be addonpack.dev/v1alpha1\n") {
		t.Fatalf("first version's addon schema: got %v", errs)
	}
}

// TestConversionBounds: more rules, or more bytes of CEL, in all the steps
// together than MaxConversionRules or MaxConversionCEL are refused when
// addon.yaml (or a config blob's addon) is parsed, before anything compiles
// them; as many as the limits allow are not.
func TestConversionBounds(t *testing.T) {
	src, err := os.ReadFile("../../specs/testdata/addon/valid/v1alpha2-conversion.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "            - move: {from: message, to: greeting.text}\n"
	if !strings.Contains(string(src), anchor) {
		t.Fatal("the test addon.yaml changed")
	}
	cel := "'" + strings.Repeat("x", 4000) + "' != ''"
	withRules := func(n int) []byte {
		rule := "            - if: \"" + cel + "\"\n              delete: {path: a}\n"
		return []byte(strings.Replace(string(src), anchor, anchor+strings.Repeat(rule, n), 1))
	}
	// The file's own rules hold under 100 bytes of CEL.
	under := (MaxConversionCEL - 100) / len(cel)
	if _, err := ParseAddon(withRules(under), "addon.yaml"); err != nil {
		t.Fatalf("%d expressions of %d bytes: %v", under, len(cel), err)
	}
	_, err = ParseAddon(withRules(under+1), "addon.yaml")
	if err == nil || !strings.Contains(err.Error(), "addon.yaml: spec.config.conversion.versions: 68") || !strings.Contains(err.Error(), "bytes of CEL expressions in all, more than the limit of 65536") {
		t.Fatalf("got %v", err)
	}

	a, err := ParseAddon(src, "addon.yaml")
	if err != nil {
		t.Fatal(err)
	}
	vs := a.Spec.Config.Conversion.Versions
	vs[0].Rules = make([]Rule, MaxConversionRules-len(vs[1].Rules))
	for i := range vs[0].Rules {
		vs[0].Rules[i] = Rule{Delete: &DeleteRule{Path: "a"}}
	}
	if err := a.check("addon.yaml"); err != nil {
		t.Fatalf("%d rules: %v", MaxConversionRules, err)
	}
	vs[0].Rules = append(vs[0].Rules, Rule{Delete: &DeleteRule{Path: "b"}})
	err = a.check("addon.yaml")
	if err == nil || !strings.Contains(err.Error(), "addon.yaml: spec.config.conversion.versions: 1025 rules in all, more than the limit of 1024") {
		t.Fatalf("got %v", err)
	}
}
