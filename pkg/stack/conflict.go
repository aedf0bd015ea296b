package stack

import (
	"fmt"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/registry"
)

// conflict explains why no version of repo satisfies reqs: every range on
// it, each with the chain of requirers from the stack file
// (specs/stack.md section 4.2, item 5).
func conflict(repo registry.Reference, reqs []requirement, prev map[string]*node, detail string) error {
	var parts []string
	for _, q := range sortedReqs(reqs) {
		parts = append(parts, chain(q, prev)+" requires "+q.text())
	}
	return fmt.Errorf("%s: %w: no version satisfies every range: %s (%s)", repo.Repo(), ErrResolve, strings.Join(parts, "; "), detail)
}

// chain is "stack → a 1.0.0 → b 0.2.0" for a requirement set by b 0.2.0,
// following the first requirer of each add-on back to the stack file.
func chain(q requirement, prev map[string]*node) string {
	links := []string{q.by}
	name := q.byName
	for depth := 0; name != "" && depth < MaxDepth; depth++ {
		n := byName(prev, name)
		if n == nil || len(n.reqs) == 0 {
			break
		}
		first := sortedReqs(n.reqs)[0]
		links = append(links, first.by)
		name = first.byName
	}
	if links[len(links)-1] != "stack" {
		links = append(links, "stack")
	}
	slices.Reverse(links)
	return strings.Join(links, " → ")
}

func byName(nodes map[string]*node, name string) *node {
	for _, n := range nodes {
		if n.art.Name == name {
			return n
		}
	}
	return nil
}

// sortedReqs orders requirements: the stack's first, then by requirer.
func sortedReqs(reqs []requirement) []requirement {
	out := slices.Clone(reqs)
	slices.SortStableFunc(out, func(a, b requirement) int {
		if (a.by == "stack") != (b.by == "stack") {
			if a.by == "stack" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.by+a.text(), b.by+b.text())
	})
	return out
}
