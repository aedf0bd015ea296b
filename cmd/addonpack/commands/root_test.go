package commands

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// names lists the commands directly under root, without the help and
// completion commands cobra adds when it executes.
func names(root *cobra.Command) []string {
	var out []string
	for _, c := range root.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			out = append(out, c.Name())
		}
	}
	return out
}

// TestVerbTable holds the table newRoot picks a run's verb from to the
// commands themselves: each entry builds the command it is named after,
// and the whole tree is the table.
func TestVerbTable(t *testing.T) {
	streams := Streams{Out: io.Discard, Err: io.Discard}
	getenv := func(string) string { return "" }
	var want []string
	for _, v := range verbs() {
		g := &globals{streams: streams, getenv: getenv}
		if got := v.new(g).Name(); got != v.name {
			t.Errorf("verbs[%q] builds %q", v.name, got)
		}
		if slices.Contains(want, v.name) {
			t.Errorf("verb %q listed twice", v.name)
		}
		want = append(want, v.name)
	}
	slices.Sort(want)
	if got := names(New(streams, getenv)); !slices.Equal(got, want) {
		t.Errorf("the whole tree has %q, the table %q", got, want)
	}
}

// TestRootBuildsTheVerbAsked checks which commands a run's root holds: the
// verb alone when the arguments start with one, the whole tree otherwise
// (a flag first, help, a mistyped verb that wants suggestions, nothing).
func TestRootBuildsTheVerbAsked(t *testing.T) {
	streams := Streams{Out: io.Discard, Err: io.Discard}
	getenv := func(string) string { return "" }
	all := names(New(streams, getenv))
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"pull", "example.com/addons/hello:0.1.0", "-o", "out"}, []string{"pull"}},
		{[]string{"config", "convert", "--help"}, []string{"config"}},
		{[]string{"version"}, []string{"version"}},
		{[]string{"--cache-dir", "pull", "version"}, all},
		{[]string{"help", "pull"}, all},
		{[]string{"pul"}, all},
		{nil, all},
	}
	for _, tt := range tests {
		root, _ := newRoot(streams, getenv, tt.args)
		if got := names(root); !slices.Equal(got, tt.want) {
			t.Errorf("%q: root holds %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestLazyRootSameOutput runs every command's --help and a mistyped flag
// through a root built for the verb alone and through the whole tree (a
// flag first builds it) and wants the same exit code, output and errors.
func TestLazyRootSameOutput(t *testing.T) {
	getenv := func(string) string { return "" }
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := append(slices.Clone(path), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	walk(New(Streams{Out: io.Discard, Err: io.Discard}, getenv), nil)
	if len(paths) < len(verbs()) {
		t.Fatalf("%d command paths", len(paths))
	}
	run := func(args []string) (int, string, string) {
		var out, errb strings.Builder
		code := Run(context.Background(), Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, getenv, args)
		return code, out.String(), errb.String()
	}
	for _, p := range paths {
		for _, tail := range [][]string{{"--help"}, {"--no-such-flag"}} {
			lazy := slices.Concat(p, tail)
			code, out, errs := run(lazy)
			fullCode, fullOut, fullErrs := run(slices.Concat([]string{"--plain-http=false"}, lazy))
			if code != fullCode || out != fullOut || errs != fullErrs {
				t.Errorf("%q: exit %d, the whole tree's %d\nout:\n%s\nthe whole tree's:\n%s\nerr:\n%s\nthe whole tree's:\n%s",
					lazy, code, fullCode, out, fullOut, errs, fullErrs)
			}
		}
	}
}
