package stack

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseLockBound: a lock of more entries than a stack resolves to
// (MaxNodes) is refused naming the file, whatever wrote it.
func TestParseLockBound(t *testing.T) {
	lock := func(addons, order int) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: " + APIVersion + "\nkind: " + KindLock + "\naddons:\n")
		for i := range addons {
			fmt.Fprintf(&b, "  - name: a%d\n    repository: registry.example/addons/a%d\n    digest: sha256:%064x\n", i, i, i)
		}
		b.WriteString("order:\n")
		for i := range order {
			fmt.Fprintf(&b, "  - a%d\n", i)
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
