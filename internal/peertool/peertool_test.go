package peertool

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFind: a peer in $ADDONPACK_TOOLS/bin is found when executable, and
// neither a plain file nor a missing name is.
func TestFind(t *testing.T) {
	tools := t.TempDir()
	t.Setenv("ADDONPACK_TOOLS", tools)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	bin := filepath.Join(tools, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("peer", 0o755)
	write("notexec", 0o644)
	write(Cosign3, 0o755)
	if got, want := Find(Cosign3), filepath.Join(bin, Cosign3); got != want {
		t.Errorf("Find(%s) = %q, want %q", Cosign3, got, want)
	}
	if got := Find(Cosign2); got != "" {
		t.Errorf("Find(%s) = %q: cosign3 must not stand in for the v2 CLI", Cosign2, got)
	}
	if got, want := Find("peer"), filepath.Join(bin, "peer"); got != want {
		t.Errorf("Find(peer) = %q, want %q", got, want)
	}
	for _, name := range []string{"notexec", "missing"} {
		if got := Find(name); got != "" {
			t.Errorf("Find(%s) = %q, want nothing", name, got)
		}
	}
}
