package upgrade

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

func TestCompare(t *testing.T) {
	prev := `{"type":"object","required":["a"],"properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"object","properties":{"d":{"type":"boolean"},"e":{"type":"string"}}},"keep":{"type":["string","null"]}}}`
	next := `{"type":"object","required":["a","n","m"],"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"object","required":["x"],"properties":{"e":{"type":"string"},"x":{"type":"string","default":"y"}}},"keep":{"type":["null","string"]},"n":{"type":"string"},"m":{"type":"string","default":"z"}}}`
	changes, err := compare([]byte(prev), []byte(next))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind+" "+c.Path)
	}
	if want := "type b; removed c.d; required n"; strings.Join(got, "; ") != want {
		t.Fatalf("changes %q, want %q", strings.Join(got, "; "), want)
	}
}

// TestSelects: a fail rule covers a change only when its if names the
// changed field as a whole selection.
func TestSelects(t *testing.T) {
	for _, tt := range []struct {
		expr, sel string
		want      bool
	}{
		{"has(spec.shout)", "spec.shout", true},
		{"spec.shout == true", "spec.shout", true},
		{"has(spec.shout.level)", "spec.shout", true},
		{"has(spec.shoutLoud)", "spec.shout", false},
		{"has(spec.shout_v2)", "spec.shout", false},
		{"has(other.spec.shout)", "spec.shout", false},
		{"has(myspec.shout)", "spec.shout", false},
		{"has(spec.shoutLoud) || has(spec.shout)", "spec.shout", true},
		{"size(spec) > 2", "spec", true},
		{"has(spec.replicas)", "spec", false},
		{"", "spec.a", false},
	} {
		if got := selects(tt.expr, tt.sel); got != tt.want {
			t.Errorf("selects(%q, %q) = %v, want %v", tt.expr, tt.sel, got, tt.want)
		}
	}
}

func TestCover(t *testing.T) {
	rules := []spec.Rule{
		{Move: &spec.MoveRule{From: "message", To: "greeting.text"}},
		{Rename: &spec.RenameRule{Path: "server.listen", To: "port"}},
		{Delete: &spec.DeleteRule{Path: "legacy"}},
		{Set: &spec.SetRule{Path: "args", Expression: "[]"}},
		{If: "has(spec.shout)", Fail: &spec.FailRule{Message: "gone"}},
		{Default: &spec.DefaultRule{Path: "style", Value: []byte(`"plain"`)}},
	}
	defaults := map[string]any{"language": "en"}
	for _, tt := range []struct {
		kind, path, want string
	}{
		{"removed", "message", "rule move message → greeting.text"},
		{"removed", "server.listen", "rule rename server.listen → server.port"},
		{"removed", "legacy.mode", "rule delete legacy"},
		{"removed", "shout", "rule fail: gone (if has(spec.shout))"},
		{"removed", "other", ""},
		{"removed", "shou", ""}, // has(spec.shout) does not name spec.shou
		{"constraint", "", ""},  // nor the whole object
		{"type", "args", "rule set args = []"},
		{"required", "greeting.text", "rule move message → greeting.text"},
		{"required", "server.port", "rule rename server.listen → server.port"},
		{"required", "style", `rule default style = "plain"`},
		{"required", "language", "packed defaults"},
		{"required", "color", ""},
	} {
		if got := cover(Change{Kind: tt.kind, Path: tt.path}, rules, defaults); got != tt.want {
			t.Errorf("cover(%s %s) = %q, want %q", tt.kind, tt.path, got, tt.want)
		}
	}
}
