package commands

import (
	"io"
	"slices"
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
	for _, v := range verbs {
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
