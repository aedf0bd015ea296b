package render

import (
	"fmt"
	"io/fs"
	"path"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// PackedConfig finds the resource of the root kustomization that holds the
// packed defaults — exactly one object of apiVersion and kind — without
// building anything. It returns its package path ("" when the package lists
// none) and whether the object is marked config.kubernetes.io/local-config
// (kustomize treats any value but "false" as set), which it must be so that
// kubectl apply -k, Flux and Argo CD never apply it.
func PackedConfig(files fs.FS, root, apiVersion, kind string) (string, bool, error) {
	root = path.Clean(root)
	var kfile string
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if fi, err := fs.Stat(files, path.Join(root, name)); err == nil && fi.Mode().IsRegular() {
			kfile = path.Join(root, name)
			break
		}
	}
	if kfile == "" {
		return "", false, fmt.Errorf("no kustomization file in %s", displayDir(root))
	}
	data, err := readScanned(files, kfile)
	if err != nil {
		return "", false, err
	}
	kust, err := yaml.Parse(string(data))
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", kfile, err)
	}
	entries, err := listValues(kust, "resources")
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", kfile, err)
	}
	for _, e := range entries {
		p, ok := resolve(root, e)
		if !ok {
			continue
		}
		if fi, err := fs.Stat(files, p); err != nil || !fi.Mode().IsRegular() {
			continue // a directory, or missing: Build reports it
		}
		data, err := readScanned(files, p)
		if err != nil {
			return "", false, err
		}
		nodes, err := readObjects(data)
		if err != nil || len(nodes) != 1 {
			continue
		}
		n := nodes[0]
		if n.GetApiVersion() != apiVersion || n.GetKind() != kind {
			continue
		}
		v, set := n.GetAnnotations()[konfig.IgnoredByKustomizeAnnotation]
		return p, set && v != "false", nil
	}
	return "", false, nil
}
