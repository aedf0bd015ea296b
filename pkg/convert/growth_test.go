package convert_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestGrowthRefusedAtBuild: rules whose static growth estimate passes
// MaxGrowth are refused by New, which the builder and every consumer call,
// naming the rule that passes it.
func TestGrowthRefusedAtBuild(t *testing.T) {
	doubleThroughMove := strings.Repeat(`{set: {path: a, expression: "[spec.m, spec.m]"}}, {delete: {path: m}}, {move: {from: a, to: m}},`, 10)
	tests := []struct {
		name  string
		steps [][2]string
		field string
	}{
		{"map doubling", [][2]string{{"v1alpha1", repeatRule(30, "m", "{'a': spec.m, 'b': spec.m}")}}, "versions[0].rules[5].set.expression"},
		{"list doubling", [][2]string{{"v1alpha1", repeatRule(40, "l", "spec.l + spec.l")}}, "versions[0].rules[5].set.expression"},
		{"string doubling", [][2]string{{"v1alpha1", repeatRule(30, "s", "spec.s + spec.s")}}, "versions[0].rules[5].set.expression"},
		{"the whole spec doubled under a key", [][2]string{{"v1alpha1", repeatRule(30, "a", "{'x': spec, 'y': spec}")}}, "versions[0].rules[5].set.expression"},
		{"a deeper path doubled from its parent", [][2]string{{"v1alpha1", repeatRule(30, "a.b", "[spec.a, spec.a]")}}, "versions[0].rules[5].set.expression"},
		{"doubling through a lookup and an optional", [][2]string{{"v1alpha1", repeatRule(30, "m", "[spec['m'], spec.?m.orValue(0)]")}}, "versions[0].rules[5].set.expression"},
		{"doubling through a move", [][2]string{{"v1alpha1", "[" + doubleThroughMove + "]"}}, "versions[0].rules[15].set.expression"},
		{"doubling across steps", [][2]string{
			{"v1alpha1", repeatRule(3, "m", "[spec.m, spec.m]")},
			{"v1alpha2", repeatRule(3, "m", "[spec.m, spec.m]")}}, "versions[1].rules[2].set.expression"},
		{"one rule of nested binds", [][2]string{{"v1alpha1", repeatRule(1, "l", nested(6))}}, "versions[0].rules[0].set.expression"},
		{"one list literal of 70 copies", [][2]string{{"v1alpha1", repeatRule(1, "l", "["+strings.TrimSuffix(strings.Repeat("spec, ", 70), ", ")+"]")}}, "versions[0].rules[0].set.expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convert.New(config(t, "v1beta1", tt.steps...))
			want := fmt.Sprintf("spec.config.conversion.%s: conversion failed: after this rule the spec may be ", tt.field)
			limit := fmt.Sprintf(" times as large as the object converted, more than %d", convert.MaxGrowth)
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), limit) {
				t.Fatalf("got %v\nwant %s…%s", err, want, limit)
			}
			if !errors.Is(err, convert.ErrConvert) || errdef.ClassOf(err) != errdef.ErrInvalid {
				t.Errorf("%v is not an invalid-input conversion failure (exit code 3)", err)
			}
		})
	}
}

// TestGrowthAccepted: rules that copy, reshape or grow a value a bounded
// number of times pass the estimate, and convert.
func TestGrowthAccepted(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, `{if: "has(spec.old.p%d)", set: {path: new.p%[1]d, expression: "spec.old.p%[1]d"}},`, i)
	}
	hundredCopies := "[" + b.String() + "]"
	b.Reset()
	for i := range 100 {
		fmt.Fprintf(&b, `{if: "has(spec.o%d)", set: {path: n%[1]d, expression: "spec.?o%[1]d.t.orValue(spec['o%[1]d']['t'])"}},`, i)
	}
	optionals := "[" + b.String() + "]"
	tests := []struct{ name, rules, in, want string }{
		{"kubeadm extraArgs to a sorted list", `[{if: "has(spec.extraArgs)", set: {path: extraArgs, expression: "spec.extraArgs.map(k, {'name': k, 'value': spec.extraArgs[k]}).sortBy(e, e.name)"}}]`,
			`{extraArgs: {v: "2", a: x}}`, `{"extraArgs":[{"name":"a","value":"x"},{"name":"v","value":"2"}]}`},
		{"one value copied to a few places", repeatRule(20, "copies.x", "spec.version"), `{version: "1.2"}`, `{"copies":{"x":"1.2"},"version":"1.2"}`},
		{"a hundred parts copied elsewhere", hundredCopies, `{old: {p7: 7, p99: x}}`, `{"new":{"p7":7,"p99":"x"},"old":{"p7":7,"p99":"x"}}`},
		{"a suffix added to every item", `[{set: {path: l, expression: "spec.l.map(x, x + spec.suffix)"}}]`, `{l: [a, b], suffix: "!"}`, `{"l":["a!","b!"],"suffix":"!"}`},
		{"one doubling", `[{set: {path: l, expression: "spec.l + spec.l"}}]`, `{l: [1]}`, `{"l":[1,1]}`},
		{"forty renames", "[" + strings.Repeat("{rename: {path: a, to: b}}, {rename: {path: b, to: a}},", 20) + "]", `{a: 1}`, `{"a":1}`},
		{"optional values of many paths", optionals, `{o7: {t: x}}`, `{"n7":"x","o7":{"t":"x"}}`},
		{"scalars from the whole spec", repeatRule(40, "count", "size(spec) + (spec == spec ? 1 : 0)"), `{a: 1}`, `{"a":1,"count":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", tt.rules}))
			res, err := ch.ConvertStable(group+"v1alpha1", specOf(t, tt.in), "values.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := canonicalJSON(t, res.Spec); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
