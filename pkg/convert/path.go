package convert

import (
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/schema"
)

// A path is a dotted list of property names under spec ("greeting.text").

// lookup returns the value at path in spec and whether it is present.
func lookup(spec any, path string) (any, bool) {
	return schema.Lookup(spec, strings.Split(path, "."))
}

// parent returns the object holding the last property of path, creating
// missing intermediate objects when create; nil (and no error) when it does
// not exist and create is false. A present intermediate value that is not an
// object is an error.
func parent(spec map[string]any, path string, create bool) (map[string]any, string, error) {
	names := strings.Split(path, ".")
	cur := spec
	for i, name := range names[:len(names)-1] {
		next, ok := cur[name]
		if !ok {
			if !create {
				return nil, "", nil
			}
			m := map[string]any{}
			cur[name] = m
			cur = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			if !create {
				return nil, "", nil
			}
			return nil, "", fmt.Errorf("%s: %s is not an object", path, strings.Join(names[:i+1], "."))
		}
		cur = m
	}
	return cur, names[len(names)-1], nil
}

// set sets path to v, creating intermediate objects.
func set(spec map[string]any, path string, v any) error {
	p, name, err := parent(spec, path, true)
	if err != nil {
		return err
	}
	p[name] = v
	return nil
}

// remove deletes path and reports whether it was present.
func remove(spec map[string]any, path string) bool {
	p, name, _ := parent(spec, path, false)
	if p == nil {
		return false
	}
	_, ok := p[name]
	delete(p, name)
	return ok
}
