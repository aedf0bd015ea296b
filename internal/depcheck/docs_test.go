package depcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the module root, seen from this package's directory.
const root = "../.."

// pkgMention matches a path under pkg/ as the documents write it: a
// package ("pkg/keys/kms") or a file of one ("pkg/render/build.go").
var pkgMention = regexp.MustCompile(`pkg/[A-Za-z0-9_./-]*[A-Za-z0-9_]`)

// TestDocsNamePackages: docs/architecture.md and the package map of
// docs/development.md (the block under "## How the code is organised") each
// name every package under pkg/ —
// a maintainer who opens either finds every package — and name none that
// does not exist, so that neither outlives a move or a merge of packages.
func TestDocsNamePackages(t *testing.T) {
	pkgs := goPackages(t)
	if len(pkgs) < 15 {
		t.Fatalf("found only %d packages under pkg/: %v", len(pkgs), pkgs)
	}
	arch, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct{ name, text string }{
		{"docs/architecture.md", string(arch)},
		{`docs/development.md's package map (under "## How the code is organised")`, packageMap(t, string(dev))},
	} {
		named := map[string]bool{}
		for _, m := range pkgMention.FindAllString(doc.text, -1) {
			switch {
			case slices.Contains(pkgs, m):
				named[m] = true
			case isFile(filepath.Join(root, filepath.FromSlash(m))):
				// a file of a package: a pointer, not the package's entry
			default:
				t.Errorf("%s names %s, which is not a package under pkg/", doc.name, m)
			}
		}
		for _, p := range pkgs {
			if !named[p] {
				t.Errorf("%s does not name %s", doc.name, p)
			}
		}
	}
}

// goPackages lists the directories under pkg/ that hold Go files, as
// "pkg/NAME" (or "pkg/NAME/SUB"), skipping what the go command ignores.
func goPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "pkg"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// packageMap returns the first fenced block of docs/development.md's "How
// the code is organised" section: the map of the repository, one line per
// package.
func packageMap(t *testing.T, dev string) string {
	t.Helper()
	_, section, ok := strings.Cut(dev, "\n## How the code is organised\n")
	if !ok {
		t.Fatal(`docs/development.md has no "## How the code is organised" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```\n")
	if !ok {
		t.Fatal(`docs/development.md's "## How the code is organised" section has no package map (a fenced block)`)
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		t.Fatal(`docs/development.md's package map is not closed`)
	}
	return block
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}
