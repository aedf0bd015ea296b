package deliver

import (
	"fmt"
	"io"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/addonpack/addonpack/pkg/convert"
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

// DiffReport is what diff prints (specs/cli-output.md): each side, whether
// the renderings differ, and the unified diff.
type DiffReport struct {
	A      DiffSide `json:"a"`
	B      DiffSide `json:"b"`
	Differ bool     `json:"differ"`
	Diff   string   `json:"diff,omitempty"`
}

// DiffSide is one side of a diff: what was rendered, and what converting
// the user's values to its config version took.
type DiffSide struct {
	Source     string         `json:"source"`
	Conversion []convert.Step `json:"conversion,omitempty"`
}

// NewDiffReport diffs renderings a and b of sources sourceA and sourceB,
// headed nameA and nameB (as the user named them).
func NewDiffReport(a, b Rendering, sourceA, sourceB, nameA, nameB string) (*DiffReport, error) {
	d, err := Diff(a.YAML, b.YAML, nameA, nameB)
	if err != nil {
		return nil, err
	}
	return &DiffReport{A: DiffSide{sourceA, a.Conversion}, B: DiffSide{sourceB, b.Conversion}, Differ: d != "", Diff: d}, nil
}

// WriteText writes the unified diff to w, or "no differences" to msgs.
func (r *DiffReport) WriteText(w, msgs io.Writer) error {
	if !r.Differ {
		fmt.Fprintln(msgs, "no differences")
		return nil
	}
	_, err := fmt.Fprint(w, r.Diff)
	return err
}
