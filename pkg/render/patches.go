package render

import (
	"fmt"
	"io/fs"
	"path"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Patch is one kustomize `patches` entry with an inline patch: the shape of
// an entry of Flux's Kustomization spec.patches and of Argo CD's
// Application source.kustomize.patches, which those controllers append to
// the root kustomization of the package they build.
type Patch struct {
	// Patch is a strategic-merge or JSON 6902 patch, as YAML or JSON.
	Patch string `json:"patch"`
	// Target selects the objects the patch applies to.
	Target *Selector `json:"target,omitempty"`
}

// Selector selects objects by group, version, kind and name; empty fields
// match anything.
type Selector struct {
	Group   string `json:"group,omitempty"`
	Version string `json:"version,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Name    string `json:"name,omitempty"`
}

// appendPatches appends patches entries to the patches list of m.
func appendPatches(m *yaml.RNode, patches []Patch) error {
	var entries []*yaml.RNode
	for _, p := range patches {
		entry := yaml.NewMapRNode(nil)
		body := yaml.NewStringRNode(p.Patch)
		body.YNode().Style = yaml.LiteralStyle
		if err := entry.PipeE(yaml.SetField("patch", body)); err != nil {
			return err
		}
		if p.Target != nil {
			t := p.Target
			target, err := stringMap([][2]string{{"group", t.Group}, {"version", t.Version}, {"kind", t.Kind}, {"name", t.Name}})
			if err != nil {
				return err
			}
			if err := entry.PipeE(yaml.SetField("target", target)); err != nil {
				return err
			}
		}
		entries = append(entries, entry)
	}
	return appendNodes(m, "patches", entries)
}

// RootComponents returns the entries of the root kustomization's
// components, cleaned ("./components/x/" is "components/x"), without
// building anything: what a controller that appends components must not
// list again, since kustomize would then apply the component twice.
func RootComponents(files fs.FS, root string) ([]string, error) {
	kfile, kust, err := rootKustomization(files, root)
	if err != nil {
		return nil, err
	}
	entries, err := listValues(kust, "components")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	for i, e := range entries {
		entries[i] = path.Clean(e)
	}
	return entries, nil
}

// rootKustomization finds and parses the kustomization file of root, the
// way kustomize picks it (kustomization.yaml, .yml, then Kustomization).
func rootKustomization(files fs.FS, root string) (string, *yaml.RNode, error) {
	root = path.Clean(root)
	var kfile string
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if fi, err := fs.Stat(files, path.Join(root, name)); err == nil && fi.Mode().IsRegular() {
			kfile = path.Join(root, name)
			break
		}
	}
	if kfile == "" {
		return "", nil, fmt.Errorf("no kustomization file in %s", displayDir(root))
	}
	data, err := readScanned(files, kfile)
	if err != nil {
		return "", nil, err
	}
	kust, err := yaml.Parse(string(data))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", kfile, err)
	}
	return kfile, kust, nil
}
