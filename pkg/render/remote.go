package render

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
)

// checker walks every kustomization reachable from a root and refuses, before
// kustomize runs, anything that would make kustomize reach outside the
// in-memory package: git clones (resources, bases, components, generators,
// transformers, validators naming a URL or a missing directory), http
// downloads (any loaded file path that is a URL), helm and plugins.
type checker struct {
	tree    *pkgTree
	visited map[string]bool // kustomization directories already checked
	openAPI bool            // some kustomization sets the openapi field
}

func newChecker(tree *pkgTree) *checker {
	return &checker{tree: tree, visited: map[string]bool{}}
}

// kustomizationFile returns the single kustomization file of dir.
func (c *checker) kustomizationFile(dir string) (string, error) {
	files := c.tree.kustomizationFiles(dir)
	switch len(files) {
	case 0:
		return "", fmt.Errorf("no kustomization file (kustomization.yaml, kustomization.yml or Kustomization) in %s", displayDir(dir))
	case 1:
		return files[0], nil
	default:
		return "", fmt.Errorf("more than one kustomization file in %s: %s", displayDir(dir), strings.Join(files, ", "))
	}
}

// checkDir checks the kustomization in dir and, recursively, every
// kustomization it reaches.
func (c *checker) checkDir(dir string) error {
	if c.visited[dir] {
		return nil
	}
	c.visited[dir] = true
	file, err := c.kustomizationFile(dir)
	if err != nil {
		return err
	}
	data, err := c.tree.read(file)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var k types.Kustomization
	if err := k.Unmarshal(data); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := checkHelm(file, &k); err != nil {
		return err
	}
	if len(k.OpenAPI) > 0 {
		c.openAPI = true
		if p, ok := k.OpenAPI["path"]; ok {
			if err := checkLoaded(file, "openapi.path", p); err != nil {
				return err
			}
		}
	}
	for _, l := range []struct {
		field   string
		entries []string
	}{{"resources", k.Resources}, {"bases", k.Bases}, {"components", k.Components}} {
		for i, e := range l.entries {
			if err := c.checkRef(dir, file, fmt.Sprintf("%s[%d]", l.field, i), e); err != nil {
				return err
			}
		}
	}
	for _, l := range []struct {
		field   string
		entries []string
	}{{"generators", k.Generators}, {"transformers", k.Transformers}, {"validators", k.Validators}} {
		for i, e := range l.entries {
			if err := c.checkPluginEntry(dir, file, fmt.Sprintf("%s[%d]", l.field, i), e); err != nil {
				return err
			}
		}
	}
	return checkLoadedFields(file, &k)
}

// checkRef checks an entry that kustomize loads as a file or, failing that,
// as a kustomization directory or git repository: it must name an existing
// file or directory of the package. Directories are checked recursively.
func (c *checker) checkRef(dir, file, field, entry string) error {
	rel, err := refPath(dir, file, field, entry)
	if err != nil {
		return err
	}
	if !c.tree.exists(rel) {
		return missingInPackage(file, field, entry)
	}
	if c.tree.dir(rel) && len(c.tree.kustomizationFiles(rel)) > 0 {
		return c.checkDir(rel)
	}
	// A file, or a directory without a kustomization: kustomize reports
	// the latter itself, without touching the network.
	return nil
}

// refPath resolves entry against dir and returns its package path, or a
// *RefusedError if it is not a path to an existing file or directory of the
// package.
func refPath(dir, file, field, entry string) (string, error) {
	switch {
	case entry == "":
		return "", notInPackage(file, field, entry, "empty path")
	case looksRemote(entry):
		return "", notInPackage(file, field, entry, "")
	case path.IsAbs(entry):
		return "", notInPackage(file, field, entry, "absolute path")
	}
	rel, ok := resolve(dir, entry)
	if !ok {
		return "", notInPackage(file, field, entry, "leaves the package root")
	}
	return rel, nil
}

// looksRemote reports whether kustomize could take entry for a git
// repository or an http(s) URL (see kustomize's git.NewRepoSpecFromURL and
// loader.IsRemoteFile): any "scheme://", "http:" or "https:" (kustomize
// fetches "http:0"), a "git::" prefix, the github.com shorthand, or an
// scp-like "user@host:path".
func looksRemote(entry string) bool {
	l := strings.ToLower(entry)
	if remoteValue(entry) || strings.HasPrefix(l, "git::") ||
		strings.HasPrefix(l, "github.com/") || strings.HasPrefix(l, "github.com:") {
		return true
	}
	// ^[a-zA-Z][a-zA-Z0-9-]*@
	for i, r := range entry {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case (r >= '0' && r <= '9' || r == '-') && i > 0:
		case r == '@' && i > 0:
			return true
		default:
			return false
		}
	}
	return false
}

// checkLoaded checks a field that kustomize reads as one file (patch paths,
// crds, configurations, generator sources, openapi.path): kustomize fetches
// it over http when it is a URL, and reads it from the host when it is an
// absolute path or leaves the package, wherever the directory is built with
// load restrictions off (kustomize --load-restrictor LoadRestrictionsNone,
// as Argo CD allows): both are refused. Missing files, and files of the
// package outside the kustomization's directory, are left to kustomize,
// whose root-only load restrictor reports them.
func checkLoaded(file, field, value string) error {
	return checkLoadedPath(file, field, value, value)
}

// checkLoadedPath is checkLoaded for a value whose file path is p (the path
// part of a generator's "key=path" file source).
func checkLoadedPath(file, field, value, p string) error {
	if remoteValue(value) {
		return notInPackage(file, field, value, "")
	}
	switch {
	case p == "":
		return nil
	case path.IsAbs(p):
		return notInPackage(file, field, value, "absolute path")
	}
	if _, ok := resolve(path.Dir(file), p); !ok {
		return notInPackage(file, field, value, "leaves the package root")
	}
	return nil
}

// remoteValue reports whether value, or the path part of a "key=path"
// generator source, is a URL that kustomize's loader would fetch: it does so
// for anything url.Parse gives an http or https scheme. Any other
// "scheme://" is refused too.
func remoteValue(value string) bool {
	candidates := []string{value}
	if _, p, ok := strings.Cut(value, "="); ok {
		candidates = append(candidates, p)
	}
	for _, v := range candidates {
		if strings.Contains(v, "://") {
			return true
		}
		if u, err := url.Parse(v); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			return true
		}
	}
	return false
}

// checkLoadedFields applies checkLoaded to every single-file field.
func checkLoadedFields(file string, k *types.Kustomization) error {
	var errs []error
	add := func(field, value string) {
		if err := checkLoaded(file, field, value); err != nil {
			errs = append(errs, err)
		}
	}
	for i, v := range k.Crds {
		add(fmt.Sprintf("crds[%d]", i), v)
	}
	for i, v := range k.Configurations {
		add(fmt.Sprintf("configurations[%d]", i), v)
	}
	for i, p := range k.Patches {
		add(fmt.Sprintf("patches[%d].path", i), p.Path)
	}
	for i, p := range k.PatchesJson6902 {
		add(fmt.Sprintf("patchesJson6902[%d].path", i), p.Path)
	}
	for i, p := range k.PatchesStrategicMerge {
		// An entry is either an inline patch or a file path.
		if s := string(p); !strings.Contains(s, "\n") && !strings.HasPrefix(strings.TrimSpace(s), "{") {
			add(fmt.Sprintf("patchesStrategicMerge[%d]", i), s)
		}
	}
	for i, r := range k.Replacements {
		add(fmt.Sprintf("replacements[%d].path", i), r.Path)
	}
	kv := func(field string, i int, a types.GeneratorArgs) {
		for j, v := range a.FileSources {
			p := v
			if _, after, ok := strings.Cut(v, "="); ok {
				p = after
			}
			if err := checkLoadedPath(file, fmt.Sprintf("%s[%d].files[%d]", field, i, j), v, p); err != nil {
				errs = append(errs, err)
			}
		}
		for j, v := range a.EnvSources {
			add(fmt.Sprintf("%s[%d].envs[%d]", field, i, j), v)
		}
		add(fmt.Sprintf("%s[%d].env", field, i), a.EnvSource)
	}
	for i, g := range k.ConfigMapGenerator {
		kv("configMapGenerator", i, g.GeneratorArgs)
	}
	for i, g := range k.SecretGenerator {
		kv("secretGenerator", i, g.GeneratorArgs)
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// checkHelm refuses the kustomization's helm fields.
func checkHelm(file string, k *types.Kustomization) error {
	switch {
	case len(k.HelmCharts) > 0:
		return &RefusedError{File: file, Field: "helmCharts[0]", Value: k.HelmCharts[0].Name, Err: ErrHelm}
	case k.HelmGlobals != nil:
		return &RefusedError{File: file, Field: "helmGlobals", Err: ErrHelm}
	case len(k.HelmChartInflationGenerator) > 0:
		return &RefusedError{File: file, Field: "helmChartInflationGenerator[0]", Value: k.HelmChartInflationGenerator[0].ChartName, Err: ErrHelm}
	}
	return nil
}
