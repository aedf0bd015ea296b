package commands

import (
	"strings"
	"testing"
)

// TestRendererID: the identity remembered render checks are keyed by is
// stable within a binary and, for a development build like this test
// binary, names the module and the executable file (test binaries carry no
// dependency list; a built addonpack lists kustomize's modules too).
func TestRendererID(t *testing.T) {
	a, b := rendererID(), rendererID()
	if a == "" || a != b {
		t.Fatalf("rendererID = %q, then %q", a, b)
	}
	for _, want := range []string{"\nexe ", "mod\tgithub.com/addonpack/addonpack"} {
		if !strings.Contains(a, want) {
			t.Errorf("rendererID does not contain %q:\n%s", want, a)
		}
	}
}
