package spec

import (
	"path"
	"path/filepath"
)

// RelTo expresses package path p relative to package directory root, as
// kustomize wants component paths ("../components/x" from "deploy").
func RelTo(root, p string) string {
	rel, err := filepath.Rel(filepath.FromSlash(root), filepath.FromSlash(p))
	if err != nil {
		return p
	}
	return path.Clean(filepath.ToSlash(rel))
}
