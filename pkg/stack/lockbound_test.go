package stack

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestParseLockBound: a lock of more entries than a stack resolves to
// (MaxNodes) is refused naming the file, whatever wrote it.
func TestParseLockBound(t *testing.T) {
	// A lock of independent roots a0…aN, valid up to its size; its order
	// is by name, as resolution writes it.
	lock := func(addons, order int) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: " + APIVersion + "\nkind: " + KindLock + "\naddons:\n")
		for i := range addons {
			fmt.Fprintf(&b, "  - name: a%d\n    repository: registry.example/addons/a%d\n    version: 1.0.0\n    tag: 1.0.0\n    digest: sha256:%064x\n    level: 0\n    requiredBy:\n      - by: stack\n        version: '*'\n", i, i, i)
		}
		names := make([]string, order)
		for i := range order {
			names[i] = fmt.Sprintf("a%d", i)
		}
		slices.Sort(names)
		b.WriteString("order:\n")
		for _, n := range names {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
		return []byte(b.String())
	}
	for _, tc := range []struct {
		addons, order int
		ok            bool
	}{
		{MaxNodes, MaxNodes, true},
		{MaxNodes + 1, MaxNodes, false},
		{MaxNodes, MaxNodes + 1, false},
	} {
		l, err := parseLock(lock(tc.addons, tc.order), "in.tar:addons.lock")
		if tc.ok {
			if err != nil || len(l.Addons) != tc.addons {
				t.Errorf("%d addons, %d order: %v", tc.addons, tc.order, err)
			}
			continue
		}
		if !errors.Is(err, ErrStack) || !strings.Contains(err.Error(), "in.tar:addons.lock") || !strings.Contains(err.Error(), fmt.Sprint(MaxNodes)) {
			t.Errorf("%d addons, %d order: got %v, want ErrStack naming the file and the bound", tc.addons, tc.order, err)
		}
	}
}
