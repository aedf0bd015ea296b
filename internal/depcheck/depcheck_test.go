// Package depcheck keeps the library fences of the architecture: each large
// dependency is imported by the few packages that own it, so that upgrading
// cosign, kustomize, oras-go or cobra touches one place.
package depcheck

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/addonpack/addonpack/"

// fences maps an import prefix to the packages (module-relative prefixes)
// allowed to import it directly.
var fences = map[string][]string{
	"github.com/spf13/cobra":                      {"cmd/"},
	"sigs.k8s.io/kustomize/":                      {"pkg/render"},
	"github.com/sigstore/":                        {"pkg/sign", "pkg/verify", "pkg/keys", "pkg/tufroot", "internal/testsigstore"},
	"github.com/theupdateframework/":              {"pkg/tufroot", "internal/testsigstore"},
	"github.com/in-toto/":                         {"pkg/provenance", "pkg/sign", "pkg/verify"},
	"oras.land/oras-go/v2/registry":               {"pkg/registry"},
	"github.com/google/go-containerregistry/":     {"pkg/registry", "pkg/sign", "pkg/verify", "pkg/spec", "pkg/relocate", "internal/testsigstore"},
	"github.com/santhosh-tekuri/jsonschema/":      {"pkg/schema", "pkg/spec", "pkg/verify"},
	"github.com/addonpack/addonpack/testregistry": {"cmd/", "testregistry", "internal/realregistry"},
	"github.com/CycloneDX/":                       {"pkg/sbom"},
	"cel.dev/cel-go":                              {"pkg/convert"},
	// The Kubernetes API client: only preflight talks to a cluster.
	"k8s.io/client-go/": {"pkg/preflight"},
	// Terminal drawing is the CLI's (its own internal/termprogress): pkg/
	// offers only callbacks (registry.Options.Progress,
	// verify.BatchOptions.Progress).
	"github.com/vbauerster/mpb/": {"cmd/", "internal/termprogress"},
	"golang.org/x/term":          {"cmd/", "internal/termprogress"},
	// Pseudo-terminals are for tests only (go list's Imports has no test
	// imports, so no package may import it).
	"github.com/creack/pty": {},
}

// forbidden maps a package (module-relative) to module packages it must not
// import: the consumer path is pkg/consume's (deliver renders what consume
// fetched; it neither builds nor fetches), and no library imports the CLI.
var forbidden = map[string][]string{
	"pkg/deliver": {"pkg/build", "pkg/consume"},
	"pkg/":        {"cmd/"},
}

func TestFences(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json", "github.com/addonpack/addonpack/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(p.ImportPath, module)
		checked++
		for _, imp := range p.Imports {
			for pkg, never := range forbidden {
				for _, n := range never {
					if strings.HasPrefix(rel, pkg) && strings.HasPrefix(imp, module+n) {
						t.Errorf("%s imports %s, which it must not (docs/architecture.md)", rel, imp)
					}
				}
			}
			for fence, allowed := range fences {
				if !strings.HasPrefix(imp, fence) {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || strings.HasPrefix(rel, a)
				}
				if !ok {
					t.Errorf("%s imports %s; only %v may (see ../shared/architecture.md fences)", rel, imp, allowed)
				}
			}
		}
	}
	if checked < 15 {
		t.Fatalf("go list returned only %d packages", checked)
	}
}
