package archive

import (
	"fmt"
	"strings"
)

// tree tracks the paths of a package (or of an archive being extracted) to
// detect duplicates, case-fold collisions and file/directory clashes, and to
// count entries (files plus directories, explicit or implied).
type tree struct {
	nodes   map[string]node // key: strings.ToLower(path)
	entries int
}

type node struct {
	path     string // exact spelling
	dir      bool
	explicit bool // a directory that had its own archive entry
}

func newTree() *tree { return &tree{nodes: make(map[string]node)} }

// addFile records the file p and its implied parent directories. It returns
// the parents that were not known before (outermost first).
func (t *tree) addFile(p string) (newDirs []string, err error) {
	newDirs, err = t.addParents(p)
	if err != nil {
		return nil, err
	}
	key := strings.ToLower(p)
	if n, ok := t.nodes[key]; ok {
		return nil, clash(p, n)
	}
	t.nodes[key] = node{path: p}
	t.entries++
	return newDirs, nil
}

// addDir records the directory p (an explicit archive entry when explicit)
// and its parents. It returns the directories that were not known before,
// p itself last if it is new.
func (t *tree) addDir(p string, explicit bool) (newDirs []string, err error) {
	newDirs, err = t.addParents(p)
	if err != nil {
		return nil, err
	}
	key := strings.ToLower(p)
	if n, ok := t.nodes[key]; ok {
		if !n.dir || n.path != p || (explicit && n.explicit) {
			return nil, clash(p, n)
		}
		if explicit {
			n.explicit = true
			t.nodes[key] = n
		}
		return newDirs, nil
	}
	t.nodes[key] = node{path: p, dir: true, explicit: explicit}
	t.entries++
	return append(newDirs, p), nil
}

func (t *tree) addParents(p string) ([]string, error) {
	var newDirs []string
	for _, d := range parents(p) {
		key := strings.ToLower(d)
		if n, ok := t.nodes[key]; ok {
			if !n.dir || n.path != d {
				return nil, clash(d, n)
			}
			continue
		}
		t.nodes[key] = node{path: d, dir: true}
		t.entries++
		newDirs = append(newDirs, d)
	}
	return newDirs, nil
}

func clash(p string, n node) error {
	kind := "file"
	if n.dir {
		kind = "directory"
	}
	if n.path == p {
		return fmt.Errorf("%w: %s %q already present", ErrDuplicate, kind, n.path)
	}
	return fmt.Errorf("%w: collides with %s %q (case-insensitive)", ErrDuplicate, kind, n.path)
}
