package deliver

import (
	"github.com/pmezard/go-difflib/difflib"
)

// Diff returns a unified diff (3 lines of context) of two renderings, or ""
// when they are identical.
func Diff(a, b []byte, nameA, nameB string) (string, error) {
	if string(a) == string(b) {
		return "", nil
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(a)),
		B:        difflib.SplitLines(string(b)),
		FromFile: nameA,
		ToFile:   nameB,
		Context:  3,
	})
}
