package convert_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
)

func TestConditionCompile(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		refused   string // substring of the refusal; "" when it compiles
	}{
		{"bool", `predicate.a == 1`, ""},
		{"nested twice", `addon.images.all(i, predicate.components.exists(c, c.name == i))`, ""},
		{"not bool", `"yes"`, "want bool"},
		{"no clock", `now() > 1`, "does not compile"},
		{"unknown variable", `spec.a == 1`, "does not compile"},
		{"four nested loops", `predicate.a.all(x, predicate.a.all(y, predicate.a.all(z, predicate.a.all(w, x + y + z + w != "x"))))`, "may cost up to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := convert.CompileCondition(tc.src, "predicate", "addon")
			switch {
			case tc.refused == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), tc.refused)):
				t.Fatalf("want a refusal saying %q, got %v (%v)", tc.refused, err, c)
			}
		})
	}
}

func TestConditionEval(t *testing.T) {
	var pred any
	if err := json.Unmarshal([]byte(`{"a": 1, "components": [{"name": "x"}, {"name": "y"}]}`), &pred); err != nil {
		t.Fatal(err)
	}
	addon := map[string]any{"images": []any{"x", "y"}}
	for _, tc := range []struct {
		src     string
		want    bool
		failure string
	}{
		{`predicate.a == 1`, true, ""},
		{`predicate.a == 2`, false, ""},
		{`addon.images.all(i, predicate.components.exists(c, c.name == i))`, true, ""},
		{`addon.images.all(i, i == "x")`, false, ""},
		{`predicate.missing == 1`, false, "no such key"},
		{`attestations == null`, true, ""}, // a variable not given is null
	} {
		c, err := convert.CompileCondition(tc.src, "predicate", "addon", "attestations")
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Eval(map[string]any{"predicate": pred, "addon": addon})
		if tc.failure != "" {
			if err == nil || !strings.Contains(err.Error(), tc.failure) {
				t.Errorf("%s: want an error with %q, got %v %v", tc.src, tc.failure, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
	c, _ := convert.CompileCondition(`addon.images.size() > 0`, "addon", "predicate")
	if !c.References("addon") || c.References("predicate") {
		t.Fatal("References does not say which variables the condition names")
	}
}

// TestConditionRunTimeBound: an input larger than the estimate assumed is
// stopped by the cost limit at run time, and a value over the size bounds
// is refused before it is evaluated.
func TestConditionRunTimeBound(t *testing.T) {
	c, err := convert.CompileCondition(`predicate.a.all(x, predicate.a.all(y, x + y != "zz"))`, "predicate")
	if err != nil {
		t.Fatal(err)
	}
	list := make([]any, 5000)
	for i := range list {
		list[i] = "ab"
	}
	if _, err := c.Eval(map[string]any{"predicate": map[string]any{"a": list}}); err == nil || !strings.Contains(err.Error(), "cost") {
		t.Fatalf("5000² iterations: want the cost limit, got %v", err)
	}
	big := make([]any, convert.MaxValueNodes+1)
	for i := range big {
		big[i] = 1
	}
	if _, err := c.Eval(map[string]any{"predicate": map[string]any{"a": big}}); err == nil {
		t.Fatal("a predicate over the node bound was evaluated")
	}
}
