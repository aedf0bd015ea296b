package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// greeterWithRules copies examples/greeter-v2 to a new directory and puts
// rules before its move rule.
func greeterWithRules(t *testing.T, rules string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "greeter")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "examples", "greeter-v2"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "addon.yaml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const move = "            - move: {from: message, to: greeting.text}\n"
	if !strings.Contains(string(b), move) {
		t.Fatal("examples/greeter-v2/addon.yaml has no move rule")
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), move, rules+move, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestConfigConvertValueBounds: conversion rules that grow a value without
// cost are refused, at build when the growth estimate shows it, and by the
// consumer's conversion when it depends on the user's object: exit code 3,
// naming the rule, with nothing written.
func TestConfigConvertValueBounds(t *testing.T) {
	reg := testregistry.New(t)
	dir := t.TempDir()
	env := map[string]string{"HOME": t.TempDir()}
	key := keyPair(t, filepath.Join(dir, "release"))
	pub := key + ".pub"

	// Ten rules that each double spec.m: refused when built, at the sixth.
	doubling := greeterWithRules(t, strings.Repeat("            - {if: \"has(spec.m)\", set: {path: m, expression: \"{'a': spec.m, 'b': spec.m}\"}}\n", 10))
	for _, args := range [][]string{{"build", doubling}, {"push", doubling, reg.Host() + "/hostile/greeter:0.2.0", "--key", key + ".key"}} {
		r := run(t, signEnv, args...)
		if r.code != commands.ExitInvalid || !strings.Contains(r.err, "spec.config.conversion.versions[0].rules[6].set.expression") ||
			!strings.Contains(r.err, "times as large as the object converted, more than 64") {
			t.Errorf("%s: %+v, want exit 3 naming rules[6]", args[0], r)
		}
	}

	// A rule whose result is the square of the user's list passes the
	// estimate (it depends on the object), is signed, and is refused by the
	// consumer's conversion of a large enough list.
	square := greeterWithRules(t, "            - {if: \"has(spec.l)\", set: {path: l, expression: \"spec.l.map(x, spec.l)\"}}\n")
	ref := reg.Host() + "/hostile/greeter:0.2.0"
	if r := run(t, signEnv, "push", square, ref, "--key", key+".key"); r.code != 0 {
		t.Fatalf("push: %+v", r)
	}
	list := strings.Repeat("1, ", 999) + "1]\n"
	obj := strings.Replace(oldValues, "spec:\n", "spec:\n  l: ["+list, 1)
	file := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(file, []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "converted.yaml")
	for _, args := range [][]string{{"config", "convert", ref, "-o", out}, {"render", ref}} {
		r := run(t, env, append(args, "--key", pub, "--values", file)...)
		want := "big.yaml: conversion failed: cannot convert v1alpha1 → v1beta1: spec.config.conversion.versions[0].rules[1].set: \"spec.l.map(x, spec.l)\": the result is larger than 200000 nodes, the limit of one value"
		if r.code != commands.ExitInvalid || !strings.Contains(r.err, want) || r.out != "" {
			t.Errorf("%s: %+v, want exit 3 and %q", args[0], r, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("config convert -o wrote %s (%v)", out, err)
	}
	// The same package converts a small list.
	small := strings.Replace(oldValues, "spec:\n", "spec:\n  l: [1, 2]\n", 1)
	if err := os.WriteFile(file, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, env, "config", "convert", ref, "--key", pub, "--values", file); r.code != 0 || !strings.Contains(r.out, "  l:\n  - - 1\n    - 2\n") {
		t.Errorf("a small list: %+v", r)
	}
}
