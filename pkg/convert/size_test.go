package convert_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// deep is an object nested n levels under a.
func deep(n int) any {
	var v any = "x"
	for range n {
		v = map[string]any{"a": v}
	}
	return v
}

func ints(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = json.Number(fmt.Sprint(i))
	}
	return l
}

// allocated runs f and returns the bytes it allocated, all goroutines
// counted (nothing else runs: the tests of this file are not parallel).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxAllocated is a generous cap on what one refused conversion may
// allocate: a few copies of values within the bounds, where the unbounded
// conversions below would ask for 2^30 nodes or more.
const maxAllocated = 1 << 30

// TestValueSizeBounds: rules that grow a value without cost (cel-go charges
// list concatenation and list and map literals a constant) are refused at
// the bound, naming the file, the step, the rule and the bound, having
// allocated a bounded amount. The chains are built without the growth
// estimate, as a package built before it would be.
func TestValueSizeBounds(t *testing.T) {
	tests := []struct {
		name  string
		steps [][2]string
		in    map[string]any
		want  []string
	}{
		{"map doubling, 30 rules", [][2]string{{"v1alpha1", repeatRule(30, "m", "{'a': spec.m, 'b': spec.m}")}},
			// {x: 1} is 2 nodes; after k rules m is 3·2^k - 1, past 200,000 at k = 17.
			map[string]any{"m": map[string]any{"x": json.Number("1")}},
			[]string{"values.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[16].set: \"{'a': spec.m, 'b': spec.m}\": the result is larger than 200000 nodes, the limit of one value"}},
		{"list doubling, 40 rules", [][2]string{{"v1alpha1", repeatRule(40, "l", "spec.l + spec.l")}},
			map[string]any{"l": ints(1)},
			[]string{"cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[", "larger than 200000 nodes, the limit of one value"}},
		{"string doubling, 30 rules", [][2]string{{"v1alpha1", repeatRule(30, "s", "spec.s + spec.s")}},
			map[string]any{"s": "ab"},
			[]string{"cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[", "larger than 4194304 bytes as JSON, the limit of one value"}},
		{"whole spec doubled under a key", [][2]string{{"v1alpha1", repeatRule(30, "a", "{'x': spec, 'y': spec}")}},
			map[string]any{"a": "x"},
			[]string{"spec.config.conversion.versions[0].rules[", "the limit of one value"}},
		{"growth across three steps", [][2]string{
			{"v1alpha1", repeatRule(8, "m", "[spec.m, spec.m]")},
			{"v1alpha2", repeatRule(8, "m", "[spec.m, spec.m]")},
			{"v1alpha3", repeatRule(8, "m", "[spec.m, spec.m]")}},
			map[string]any{"m": "x"},
			[]string{"cannot convert v1alpha3 → v1beta1: spec.config.conversion.versions[2].rules[", "larger than 200000 nodes, the limit of one value"}},
		{"one rule doubling 12 times (cel.bind)", [][2]string{{"v1alpha1", repeatRule(1, "l", nested(12))}},
			map[string]any{"l": ints(2000)},
			[]string{"spec.config.conversion.versions[0].rules[0].set: CEL expression", "a value it builds is larger than 4394304 (bytes of strings and other nodes), the limit of one value"}},
		{"one comprehension building past the bound", [][2]string{{"v1alpha1", repeatRule(1, "l", "spec.l.map(x, [spec.l, spec.l])")}},
			map[string]any{"l": ints(1500)},
			[]string{"versions[0].rules[0].set: CEL expression", "a value it builds is larger than 4394304"}},
		{"one comprehension, the result too large", [][2]string{{"v1alpha1", repeatRule(1, "l", "spec.l.map(x, spec.l)")}},
			map[string]any{"l": ints(1000)},
			[]string{"versions[0].rules[0].set: \"spec.l.map(x, spec.l)\": the result is larger than 200000 nodes"}},
		{"a list literal of the spec", [][2]string{{"v1alpha1", repeatRule(1, "l", "["+strings.TrimSuffix(strings.Repeat("spec.s, ", 40), ", ")+"]")}},
			map[string]any{"s": strings.Repeat("x", 200_000)},
			[]string{"versions[0].rules[0].set: CEL expression", "a value it builds is larger than 4394304"}},
		{"a format of copies", [][2]string{{"v1alpha1", repeatRule(1, "s", "'"+strings.Repeat("%s", 8)+"'.format(["+strings.TrimSuffix(strings.Repeat("spec.s, ", 8), ", ")+"])")}},
			map[string]any{"s": strings.Repeat("x", 600_000)},
			[]string{"versions[0].rules[0].set: CEL expression", "a value it builds is larger than 4394304"}},
		{"a comprehension's result flattened", [][2]string{{"v1alpha1", repeatRule(1, "l", "spec.l.map(x, spec.m).flatten()")}},
			map[string]any{"l": ints(100), "m": ints(100_000)},
			[]string{"versions[0].rules[0].set: CEL expression", "a value it builds is larger than 4394304"}},
		{"lists.range", [][2]string{{"v1alpha1", repeatRule(1, "l", "lists.range(5000000)")}},
			map[string]any{},
			[]string{"versions[0].rules[0].set: CEL expression", "lists.range: size 5000000 exceeds maximum allowed (200000)"}},
		{"an object too large to start with", [][2]string{{"v1alpha1", repeatRule(1, "count", "size(spec.l)")}},
			map[string]any{"l": ints(convert.MaxValueNodes)},
			[]string{"versions[0].rules[0].set: CEL expression \"size(spec.l)\": the spec is larger than 200000 nodes, the limit of one value"}},
		{"an object too deep", [][2]string{{"v1alpha1", `[{if: "has(spec.a)", delete: {path: b}}]`}},
			map[string]any{"a": deep(convert.MaxValueDepth)},
			[]string{"versions[0].rules[0].if: CEL expression \"has(spec.a)\": the spec is nested deeper than 256 levels, the limit of one value"}},
		{"the spec copied by many evaluations (bytes)", [][2]string{{"v1alpha1", "[" + strings.Repeat(`{if: "has(spec.s)", delete: {path: b}},`, 40) + "]"}},
			map[string]any{"s": strings.Repeat("x", 3<<20)},
			[]string{"].if: CEL expression \"has(spec.s)\": the spec takes the values of the conversion over 67108864 bytes together, the limit of one conversion"}},
		{"the spec copied by many evaluations (nodes)", [][2]string{{"v1alpha1", "[" + strings.Repeat(`{if: "has(spec.l)", delete: {path: b}},`, 40) + "]"}},
			map[string]any{"l": ints(150_000)},
			[]string{"].if: CEL expression \"has(spec.l)\": the spec takes the values of the conversion over 4000000 nodes together, the limit of one conversion"}},
		{"defaults past the bound", [][2]string{{"v1alpha1", fmt.Sprintf(`[{default: {path: a, value: %q}}, {default: {path: b, value: %[1]q}}, {default: {path: c, value: %[1]q}}]`, strings.Repeat("x", 1500_000))}},
			map[string]any{},
			[]string{"cannot convert v1alpha1 → v1beta1: the converted spec is larger than 4194304 bytes as JSON, the limit of one value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := convert.NewUnestimated(config(t, "v1beta1", tt.steps...))
			if err != nil {
				t.Fatal(err)
			}
			var cerr error
			n := allocated(func() { _, cerr = ch.Convert(group+"v1alpha1", tt.in, "values.yaml") })
			if cerr == nil {
				t.Fatal("converted")
			}
			msg := cerr.Error()
			if !strings.HasPrefix(msg, "values.yaml: conversion failed: ") || !errors.Is(cerr, convert.ErrConvert) || !errors.Is(cerr, errdef.ErrInvalid) || errdef.ClassOf(cerr) != errdef.ErrInvalid {
				t.Errorf("%v: not an invalid-input conversion failure (exit code 3)", cerr)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%.300s\ndoes not contain %q", msg, w)
				}
			}
			t.Logf("refused having allocated %d KiB", n>>10)
			if n > maxAllocated {
				t.Errorf("allocated %d bytes, more than %d", n, maxAllocated)
			}
		})
	}
}

// TestLargeLegitConfig: a config far larger than real ones (thousands of
// containers, a thousand extraArgs, about 1.4 MiB of JSON and 110,000 nodes) converts through
// the usual kinds of rules, within every bound, with the growth estimate.
func TestLargeLegitConfig(t *testing.T) {
	containers := make([]any, 12000)
	for i := range containers {
		containers[i] = map[string]any{
			"name": fmt.Sprintf("c%04d", i), "image": "registry.example.com/team/app",
			"args": []any{"--v=2", fmt.Sprintf("--id=%d", i)},
			"env":  map[string]any{"A": "1", "B": fmt.Sprintf("value-%d", i)},
		}
	}
	extra := map[string]any{}
	for i := range 1000 {
		extra[fmt.Sprintf("flag-%04d", i)] = fmt.Sprintf("%d", i)
	}
	in := map[string]any{"containers": containers, "extraArgs": extra, "tag": "v1.2.3", "legacy": map[string]any{"mode": "x"}}
	js, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) < 1<<20 {
		t.Fatalf("the input is only %d bytes", len(js))
	}
	ch := mustNew(t, config(t, "v1",
		[2]string{"v1alpha1", `[{rename: {path: tag, to: version}}, {delete: {path: legacy.mode}}, {default: {path: replicas, value: 1}}]`},
		[2]string{"v1beta1", `[
  {if: "has(spec.extraArgs)", set: {path: extraArgs, expression: "spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name)"}},
  {set: {path: workloads, expression: "spec.containers.map(c, {'name': c.name, 'image': c.image + ':' + spec.version, 'args': c.args, 'env': c.env})"}},
  {delete: {path: containers}},
  {move: {from: version, to: image.tag}}]`},
	))
	res, err := ch.Convert(group+"v1alpha1", in, "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := res.Spec.(map[string]any)
	w := out["workloads"].([]any)
	if len(w) != len(containers) || len(out["extraArgs"].([]any)) != len(extra) || out["containers"] != nil {
		t.Fatalf("%d workloads, %d extraArgs", len(w), len(out["extraArgs"].([]any)))
	}
	got, _ := json.Marshal(w[1234])
	if want := `{"args":["--v=2","--id=1234"],"env":{"A":"1","B":"value-1234"},"image":"registry.example.com/team/app:v1.2.3","name":"c1234"}`; string(got) != want {
		t.Errorf("workload 1234: %s, want %s", got, want)
	}
	if tag, _ := json.Marshal(out["image"]); string(tag) != `{"tag":"v1.2.3"}` {
		t.Errorf("image %s", tag)
	}
}

// TestDepthBoundary: a spec of exactly MaxValueDepth levels goes through
// CEL and back; one level more is refused.
func TestDepthBoundary(t *testing.T) {
	ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", `[{set: {path: b, expression: "spec.a"}}, {delete: {path: a}}]`}))
	res, err := ch.Convert(group+"v1alpha1", map[string]any{"a": deep(convert.MaxValueDepth - 1)}, "values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonicalJSON(t, res.Spec), canonicalJSON(t, map[string]any{"b": deep(convert.MaxValueDepth - 1)}); got != want {
		t.Errorf("got %.100s…, want %.100s…", got, want)
	}
	_, err = ch.Convert(group+"v1alpha1", map[string]any{"a": deep(convert.MaxValueDepth)}, "values.yaml")
	if err == nil || !strings.Contains(err.Error(), "the spec is nested deeper than 256 levels, the limit of one value") {
		t.Fatalf("got %v", err)
	}
}
