package convert_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/convert"
)

// repeatRule is n copies of the set rule path = expr, as a YAML list.
func repeatRule(n int, path, expr string) string {
	r := fmt.Sprintf("{set: {path: %s, expression: %q}},", path, expr)
	return "[" + strings.Repeat(r, n) + "]"
}

// nested is n expressions each binding the next name to the previous one
// doubled: cel.bind(v1, spec.l + spec.l, cel.bind(v2, v1 + v1, … vn)).
func nested(n int) string {
	var b strings.Builder
	prev := "spec.l"
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "cel.bind(v%d, %s + %s, ", i, prev, prev)
		prev = fmt.Sprintf("v%d", i)
	}
	b.WriteString(prev + strings.Repeat(")", n))
	return b.String()
}

// TestExpansionBounded: nested cel.bind expressions that each refer twice
// to the one before are refused before cel-go's cost estimator, which
// walks the bound expression again at each reference, takes time and
// memory exponential in their depth.
func TestExpansionBounded(t *testing.T) {
	for _, n := range []int{13, 20, 40} {
		c := config(t, "v1beta1", [2]string{"v1alpha1", repeatRule(1, "l", nested(n))})
		var err error
		allocs := testing.AllocsPerRun(1, func() { _, err = convert.New(c) })
		if err == nil || !strings.Contains(err.Error(), "spec.config.conversion.versions[0].rules[0].set.expression: conversion failed: CEL expression") ||
			!strings.Contains(err.Error(), fmt.Sprintf("expands to more than %d nodes", convert.MaxExpansion)) || !errors.Is(err, convert.ErrConvert) {
			t.Fatalf("%d binds: got %v", n, err)
		}
		if allocs > 200_000 {
			t.Errorf("%d binds: %v allocations", n, allocs)
		}
	}
	mustNew(t, config(t, "v1beta1", [2]string{"v1alpha1", repeatRule(1, "l", "cel.bind(x, spec.l, cel.bind(y, x + x, y.map(e, e + 1)))")}))
}
