package spec

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/name"
)

// check applies the rules the JSON Schema cannot express.
func (a *Addon) check(file string) error {
	var errs Errors
	add := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{File: file, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if _, err := semver.StrictNewVersion(a.Spec.Version); err != nil {
		add("spec.version", "%q is not a strict semantic version: %v", a.Spec.Version, err)
	}
	if a.Spec.Kustomize != "" && !LocalPath(a.Spec.Kustomize) {
		add("spec.kustomize", "%q must be a relative slash-separated path inside the package", a.Spec.Kustomize)
	}
	if a.Spec.Kubernetes != "" {
		if _, err := semver.NewConstraint(a.Spec.Kubernetes); err != nil {
			add("spec.kubernetes", "%q is not a semver range: %v", a.Spec.Kubernetes, err)
		}
	}
	if c := a.Spec.Config; c != nil {
		checkPath := func(field, p string) {
			if p != "" && (!LocalPath(p) || p == ".") {
				add(field, "%q must be a relative slash-separated file path inside the package", p)
			}
		}
		checkPath("spec.config.schema", c.Schema)
		checkPath("spec.config.defaults", c.Defaults)
		seen := map[string]bool{}
		for i, comp := range c.Components {
			field := fmt.Sprintf("spec.config.components[%d]", i)
			if !LocalPath(comp.Path) || comp.Path == "." {
				add(field+".path", "%q must be a relative slash-separated directory inside the package", comp.Path)
			}
			if seen[comp.Path] {
				add(field+".path", "%q is listed twice", comp.Path)
			}
			seen[comp.Path] = true
		}
		for i, o := range c.Overlays {
			checkPath(fmt.Sprintf("spec.config.overlays[%d].defaults", i), o.Defaults)
		}
		c.checkConversion(add)
	}
	names := map[string]bool{}
	for i, d := range a.Spec.Dependencies {
		field := fmt.Sprintf("spec.dependencies[%d]", i)
		if names[d.Name] {
			add(field+".name", "%q is listed twice", d.Name)
		}
		names[d.Name] = true
		if _, err := name.NewRepository(d.Repository, name.StrictValidation); err != nil {
			add(field+".repository", "%q is not an OCI repository (registry/path, without tag or digest)", d.Repository)
		}
		if _, err := semver.NewConstraint(d.Version); err != nil {
			add(field+".version", "%q is not a semver range: %v", d.Version, err)
		}
	}
	imgs := map[string]bool{}
	for i, img := range a.Spec.Images {
		field := fmt.Sprintf("spec.images[%d]", i)
		if _, err := name.ParseReference(img); err != nil {
			add(field, "%q is not an image reference: %v", img, err)
		}
		if imgs[img] {
			add(field, "%q is listed twice", img)
		}
		imgs[img] = true
	}
	return errs.orNil()
}

// LocalPath reports whether p is a clean, relative, slash-separated path that
// stays inside its root ("." included).
func LocalPath(p string) bool {
	return fs.ValidPath(p) && !strings.ContainsAny(p, "\\\x00")
}
