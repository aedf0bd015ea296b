package config

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

// MaxProfiles bounds the profiles a builder renders (specs/config.md
// section 10.4).
const MaxProfiles = 32

// MaxKubeChecks bounds the range checks listing the Kubernetes versions
// takes: candidate versions times components with `kubernetes`
// (specs/config.md section 10.4). Each check costs microseconds and both
// factors grow with addon.yaml, so a config blob read unverified from a
// registry (inspect) could otherwise keep Profiles busy for hours; an
// add-on with a few dozen ranged components needs a small fraction of it.
const MaxKubeChecks = 1 << 14

// profiles is what a type's components and overlays depend on besides
// booleans: enum values and Kubernetes versions (addonpack.dev/v1alpha2).
type profiles struct {
	conds    []condition  // per component; a zero condition when it has no when
	kube     []*kubeRange // per component; nil when it has no kubernetes range
	overlays []overlay
	enums    []enumField // the enum fields a when reads, in order of first use
	allowed  *semver.Range
}

type overlay struct {
	cond condition
	file string
	spec any
}

type enumField struct {
	path   string
	values []string
}

// loadProfiles parses the components' `when` and `kubernetes` and the
// defaults overlays, checking them against the schema.
func (t *Type) loadProfiles(files fs.FS, a *spec.Addon, display func(string) string) error {
	c := a.Spec.Config
	v2 := a.APIVersion != spec.APIVersion // enum matches, ranges, overlays: v1alpha2
	var doc map[string]any
	if err := json.Unmarshal(t.Schema.JSON(), &doc); err != nil {
		return err
	}
	fieldErr := func(field, format string, args ...any) error {
		return &spec.FieldError{File: spec.FileName, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	useEnum := func(cond condition, enum []string) {
		if enum != nil && !slices.ContainsFunc(t.prof.enums, func(e enumField) bool { return e.path == cond.field() }) {
			t.prof.enums = append(t.prof.enums, enumField{path: cond.field(), values: enum})
		}
	}
	for i, comp := range c.Components {
		field := fmt.Sprintf("spec.config.components[%d]", i)
		var cond condition
		if comp.When != "" {
			var err error
			if cond, err = parseCondition(comp.When, v2); err != nil {
				return fieldErr(field+".when", "%v", err)
			}
			enum, err := cond.checkAgainst(doc, t.SchemaFile)
			if err != nil {
				return fieldErr(field+".when", "%v", err)
			}
			useEnum(cond, enum)
		} else if comp.Kubernetes == "" {
			return fieldErr(field, "needs when, kubernetes or both")
		}
		t.prof.conds = append(t.prof.conds, cond)
		var kr *kubeRange
		if comp.Kubernetes != "" {
			if !v2 {
				return fieldErr(field+".kubernetes", "needs apiVersion addonpack.dev/v1alpha2")
			}
			r, err := parseKubeRange(comp.Kubernetes)
			if err != nil {
				return fieldErr(field+".kubernetes", "%v", err)
			}
			kr = &r
		}
		t.prof.kube = append(t.prof.kube, kr)
	}
	for i, o := range c.Overlays {
		field := fmt.Sprintf("spec.config.overlays[%d]", i)
		if !v2 {
			return fieldErr(field, "needs apiVersion addonpack.dev/v1alpha2")
		}
		cond, err := parseCondition(o.When, true)
		if err != nil {
			return fieldErr(field+".when", "%v", err)
		}
		enum, err := cond.checkAgainst(doc, t.SchemaFile)
		if err != nil {
			return fieldErr(field+".when", "%v", err)
		}
		useEnum(cond, enum)
		if files == nil { // ProfilesOf: the overlay's contents choose no profile
			t.prof.overlays = append(t.prof.overlays, overlay{cond: cond, file: display(o.Defaults)})
			continue
		}
		data, err := fs.ReadFile(files, o.Defaults)
		if err != nil {
			return fmt.Errorf("%s: %w", display(o.Defaults), err)
		}
		obj, err := schema.ParseObject(data, display(o.Defaults), c.APIVersion, c.Kind)
		if err != nil {
			return err
		}
		t.prof.overlays = append(t.prof.overlays, overlay{cond: cond, file: display(o.Defaults), spec: obj.Spec})
	}
	// An overlay chosen by a field must not change what chooses it.
	for _, o := range t.prof.overlays {
		for _, other := range t.prof.overlays {
			if has(o.spec, other.cond.path) {
				return fieldErr("spec.config.overlays", "%s sets %s, which %q reads", o.file, other.cond.field(), other.cond.text)
			}
		}
	}
	if a.Spec.Kubernetes != "" && slices.ContainsFunc(t.prof.kube, func(k *kubeRange) bool { return k != nil }) {
		r, err := semver.ParseRange(a.Spec.Kubernetes)
		if err != nil {
			return fieldErr("spec.kubernetes", "%v", err)
		}
		t.prof.allowed = &r
	}
	return nil
}

// has reports whether the dotted path is set in v.
func has(v any, path []string) bool {
	_, ok := schema.Lookup(v, path)
	return ok
}

// overlaid returns the packed defaults with every overlay whose `when`
// holds for probe merged over them, in order.
func (t *Type) overlaid(probe any) (any, error) {
	base := schema.DeepCopy(t.Defaults)
	for _, o := range t.prof.overlays {
		on, err := o.cond.holds(probe)
		if err != nil {
			return nil, fmt.Errorf("spec.config.overlays: %q: %w", o.cond.text, err)
		}
		if on {
			base = Merge(base, o.spec)
		}
	}
	return base, nil
}

// NeedsKubeVersion reports whether a component depends on the Kubernetes
// version, so that resolving needs Options.KubeVersion.
func (t *Type) NeedsKubeVersion() bool {
	return slices.ContainsFunc(t.prof.kube, func(k *kubeRange) bool { return k != nil })
}

// Profile is one combination of the values components and overlays depend
// on besides booleans: a value of each enum field a `when` reads, and a
// Kubernetes version.
type Profile struct {
	// Name is a file-name-safe label: "provider-aws_kubernetes-1.29.0".
	Name string
	// Fields sets enum fields (dotted paths under spec), in order.
	Fields [][2]string
	// KubeVersion is zero when no component depends on it.
	KubeVersion semver.Version
}

// Object is the config object that selects p: only its enum fields set.
func (p Profile) Object(t *Type) []byte {
	sp := map[string]any{}
	for _, f := range p.Fields {
		node := sp
		keys := strings.Split(f[0], ".")
		for _, k := range keys[:len(keys)-1] {
			next, ok := node[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[k] = next
			}
			node = next
		}
		node[keys[len(keys)-1]] = f[1]
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": t.APIVersion, "kind": t.Kind, "spec": sp})
	return b
}

// Profiles lists every profile of the type: the product of the values of
// each enum field a `when` reads and of one Kubernetes version per set of
// version-dependent components it enables (from the boundaries of their
// ranges, within addon.yaml spec.kubernetes). None for a type whose
// components depend on booleans only. More than MaxProfiles is an error.
func (t *Type) Profiles() ([]Profile, error) {
	var kubes []semver.Version
	if t.NeedsKubeVersion() {
		var ranges []kubeRange
		for _, k := range t.prof.kube {
			if k != nil {
				ranges = append(ranges, *k)
			}
		}
		points := kubePoints(ranges, t.prof.allowed)
		if checks := len(points) * len(ranges); checks > MaxKubeChecks {
			return nil, &spec.FieldError{File: spec.FileName, Field: "spec.config.components",
				Msg: fmt.Sprintf("%d candidate Kubernetes versions times %d components with kubernetes make %d range checks, more than the %d the builder makes to list the profiles", len(points), len(ranges), checks, MaxKubeChecks)}
		}
		seen := map[string]bool{}
		for _, v := range points {
			var sig strings.Builder
			for _, r := range ranges {
				fmt.Fprint(&sig, r.matches(v), ",")
			}
			if !seen[sig.String()] {
				seen[sig.String()] = true
				kubes = append(kubes, v)
			}
		}
		if len(kubes) == 0 {
			return nil, &spec.FieldError{File: spec.FileName, Field: "spec.kubernetes", Msg: "no Kubernetes version of the components' ranges is allowed by it"}
		}
	}
	if len(t.prof.enums) == 0 && len(kubes) == 0 {
		return nil, nil
	}
	// Counted in float64: a product of many enums would overflow an int
	// (64 enums of two values make 0) and let the loops below build it.
	n := float64(max(len(kubes), 1))
	for _, e := range t.prof.enums {
		n *= float64(len(e.values))
	}
	if n > MaxProfiles {
		var factors []string
		if len(t.prof.enums) > 0 {
			factors = append(factors, "enum values of "+t.enumNames())
		}
		if len(kubes) > 0 {
			factors = append(factors, fmt.Sprintf("%d Kubernetes versions", len(kubes)))
		}
		return nil, &spec.FieldError{File: spec.FileName, Field: "spec.config",
			Msg: fmt.Sprintf("%.0f profiles (%s), more than the %d the builder renders", n, strings.Join(factors, " times "), MaxProfiles)}
	}
	out := []Profile{{}}
	for _, e := range t.prof.enums {
		var next []Profile
		for _, p := range out {
			for _, v := range e.values {
				q := Profile{Fields: append(slices.Clone(p.Fields), [2]string{e.path, v})}
				next = append(next, q)
			}
		}
		out = next
	}
	if len(kubes) > 0 {
		var next []Profile
		for _, p := range out {
			for _, k := range kubes {
				next = append(next, Profile{Fields: p.Fields, KubeVersion: k})
			}
		}
		out = next
	}
	for i := range out {
		var parts []string
		for _, f := range out[i].Fields {
			parts = append(parts, strings.ReplaceAll(f[0], ".", "-")+"-"+f[1])
		}
		if !out[i].KubeVersion.IsZero() {
			parts = append(parts, "kubernetes-"+out[i].KubeVersion.String())
		}
		out[i].Name = strings.Join(parts, "_")
	}
	return out, nil
}

// ProfilesOf lists the profiles (Type.Profiles) of the config type a
// declares from addon.yaml and the canonical schema alone — an artifact's
// config blob — so that inspect lists them without the package content.
// Overlays' defaults files are not read: they select no profile. Nil for an
// add-on without a config type or without profiles.
func ProfilesOf(ctx context.Context, a *spec.Addon, schemaJSON []byte, limits schema.Limits) ([]Profile, error) {
	t, err := blobType(ctx, a, schemaJSON, limits)
	if t == nil || err != nil {
		return nil, err
	}
	if err := t.loadProfiles(nil, a, func(p string) string { return p }); err != nil {
		return nil, err
	}
	return t.Profiles()
}

// MarshalJSON writes p as inspect prints it (specs/cli-output.md): {name,
// fields: {PATH: VALUE…}, kubernetes}, the fields and version left out when
// the profile does not depend on them.
func (p Profile) MarshalJSON() ([]byte, error) {
	var fields map[string]string
	for _, f := range p.Fields {
		if fields == nil {
			fields = map[string]string{}
		}
		fields[f[0]] = f[1]
	}
	kube := ""
	if !p.KubeVersion.IsZero() {
		kube = p.KubeVersion.String()
	}
	return json.Marshal(struct {
		Name       string            `json:"name"`
		Fields     map[string]string `json:"fields,omitempty"`
		Kubernetes string            `json:"kubernetes,omitempty"`
	}{p.Name, fields, kube})
}

func (t *Type) enumNames() string {
	var s []string
	for _, e := range t.prof.enums {
		s = append(s, fmt.Sprintf("%s (%d)", e.path, len(e.values)))
	}
	return strings.Join(s, ", ")
}

// AllOn returns the components a resolved spec enables when every boolean
// `when` is taken as true: enum matches and Kubernetes ranges still decide.
// The builder renders each profile this way too, so that a component its
// defaults leave off is checked, without enabling components of other
// profiles that may exclude one another.
func (t *Type) AllOn(spec any, opts Options) ([]string, error) {
	var out []string
	for i, comp := range t.Components {
		if i < len(t.prof.conds) && t.prof.conds[i].path != nil && t.prof.conds[i].values == nil {
			if i >= len(t.prof.kube) || t.prof.kube[i] == nil || (!opts.KubeVersion.IsZero() && t.prof.kube[i].matches(opts.KubeVersion)) {
				out = append(out, path.Clean(comp.Path))
			}
			continue
		}
		on, err := t.enabled(i, spec, opts)
		if err != nil {
			return nil, err
		}
		if on {
			out = append(out, path.Clean(comp.Path))
		}
	}
	return out, nil
}
