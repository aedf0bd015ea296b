package spec

// Addon is addon.yaml: the add-on manifest of a package. The same structure,
// resolved (defaults filled in, images derived), is the artifact's config blob.
type Addon struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   Metadata  `json:"metadata"`
	Spec       AddonSpec `json:"spec"`
}

// Metadata identifies the add-on.
type Metadata struct {
	// Name is a DNS-1123 label.
	Name string `json:"name"`
}

// AddonSpec describes the add-on.
type AddonSpec struct {
	// Version is a strict semantic version (MAJOR.MINOR.PATCH[-pre][+build]).
	Version     string       `json:"version"`
	Description string       `json:"description"`
	Homepage    string       `json:"homepage,omitempty"`
	Source      string       `json:"source,omitempty"`
	License     string       `json:"license,omitempty"`
	Maintainers []Maintainer `json:"maintainers,omitempty"`
	// Kustomize is the kustomization directory inside the package; "." by default.
	Kustomize    string       `json:"kustomize,omitempty"`
	Config       *Config      `json:"config,omitempty"`
	Dependencies []Dependency `json:"dependencies,omitempty"`
	// Images are the container images the add-on deploys. When addon.yaml
	// omits them, the builder derives them from the rendered output.
	Images []string `json:"images,omitempty"`
	// Kubernetes is the supported Kubernetes version range (a semver constraint).
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Maintainer is a person or team responsible for the add-on.
type Maintainer struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Config declares the add-on's component-config type.
type Config struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Schema is the path of the schema of the config object's spec.
	Schema string `json:"schema"`
	// Defaults is the path of a config object that validates against Schema.
	Defaults string `json:"defaults,omitempty"`
	// Components are kustomize Components switched on by boolean config
	// fields, enum values or Kubernetes versions.
	Components []Component `json:"components,omitempty"`
	// Conversion (addonpack.dev/v1alpha2 and later) declares the older
	// versions of the config type the add-on still reads.
	Conversion *Conversion `json:"conversion,omitempty"`
	// Overlays (addonpack.dev/v1alpha2) are packed-defaults overlays, each
	// merged over the defaults when its When holds.
	Overlays []Overlay `json:"overlays,omitempty"`
}

// Component is an optional kustomize Component, enabled when When holds for
// the resolved config (a boolean field "a.b", or an enum field matched
// "a.b in [x, y]", the latter addonpack.dev/v1alpha2) and, when Kubernetes
// is set (addonpack.dev/v1alpha2), the target Kubernetes version is in that
// range.
type Component struct {
	Path       string `json:"path"`
	When       string `json:"when,omitempty"`
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Overlay is a file of packed defaults merged over spec.config.defaults
// when When (an enum match, "provider in [aws, eks]") holds.
type Overlay struct {
	When     string `json:"when"`
	Defaults string `json:"defaults"`
}

// Dependency is another add-on this one needs. Recorded now, resolved by
// later tooling.
type Dependency struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	// Version is a semver constraint, e.g. ">=1.14.0, <2.0.0".
	Version string `json:"version"`
}

// KustomizeRoot returns the kustomization directory, "." when unset.
func (a *Addon) KustomizeRoot() string {
	if a.Spec.Kustomize == "" {
		return "."
	}
	return a.Spec.Kustomize
}

// ConfigType returns "apiVersion/kind" of the component config, or "".
func (a *Addon) ConfigType() string {
	if a.Spec.Config == nil {
		return ""
	}
	return a.Spec.Config.APIVersion + "/" + a.Spec.Config.Kind
}
