package render

import (
	"fmt"
	"io/fs"
	"path"

	"sigs.k8s.io/kustomize/api/konfig"
)

// PackedConfig finds the resource of the root kustomization that holds the
// packed defaults — exactly one object of apiVersion and kind — without
// building anything. It returns its package path ("" when the package lists
// none) and whether the object is marked config.kubernetes.io/local-config
// (kustomize treats any value but "false" as set), which it must be so that
// kubectl apply -k, Flux and Argo CD never apply it.
func PackedConfig(files fs.FS, root, apiVersion, kind string) (string, bool, error) {
	root = path.Clean(root)
	kfile, kust, err := rootKustomization(files, root)
	if err != nil {
		return "", false, err
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
