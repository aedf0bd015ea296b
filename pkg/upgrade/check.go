package upgrade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ErrBreaks is returned when the new release would break config objects
// written for the previous one.
var ErrBreaks = errdef.New(errdef.ErrInvalid, "the upgrade breaks configurations of the previous release")

// Release is the config side of one release of an add-on.
type Release struct {
	// Name is the reference or directory, as messages show it.
	Name  string
	Addon *spec.Addon
	// Type is the loaded config type; nil when the add-on declares none.
	Type *config.Type
	// Files are the package files (test vectors are read from them); nil
	// for a release known from its config blob only, whose packed defaults
	// and test vectors are then not run.
	Files fs.FS
}

// Report is what Check found.
type Report struct {
	Previous              string   `json:"previous"`
	PreviousConfigVersion string   `json:"previousConfigVersion,omitempty"`
	ConfigVersion         string   `json:"configVersion,omitempty"`
	Changes               []Change `json:"changes"`
	// Checked are the objects of the previous release that were converted
	// and resolved with the new one.
	Checked []string `json:"checked"`
	// Problems are everything that fails the check, in order.
	Problems []string `json:"problems,omitempty"`
	// NoPrevious says why there is no previous release to check against
	// (a first release); Previous is empty then.
	NoPrevious string `json:"noPrevious,omitempty"`
}

// FirstRelease is the report when there is no previous release (why says
// how that was found): no user's config object can break, so it passes.
func FirstRelease(why string) *Report {
	return &Report{Changes: []Change{}, Checked: []string{}, NoPrevious: why}
}

// Check compares release prev with next (specs/config.md section 9.7). It
// returns the report, and an error matching ErrBreaks when there is a
// problem.
func Check(prev, next Release) (*Report, error) {
	r := &Report{Previous: prev.Name, Changes: []Change{}, Checked: []string{}}
	if prev.Type == nil {
		return r, nil
	}
	r.PreviousConfigVersion = prev.Type.APIVersion
	if next.Type == nil {
		r.Problems = append(r.Problems, fmt.Sprintf("%s declares no config type, %s did (%s)", next.Name, prev.Name, prev.Type.APIVersion))
		return r, r.err()
	}
	r.ConfigVersion = next.Type.APIVersion
	if prev.Type.Kind != next.Type.Kind {
		r.Problems = append(r.Problems, fmt.Sprintf("the config kind changed from %s to %s: conversion keeps the kind", prev.Type.Kind, next.Type.Kind))
		return r, r.err()
	}
	vp := prev.Type.APIVersion
	step := slices.Index(next.Type.Versions(), vp)
	if step < 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%s does not read %s, the config version of %s (it reads %s): declare it in spec.config.conversion.versions",
			next.Name, vp, prev.Name, strings.Join(next.Type.Versions(), ", ")))
		return r, r.err()
	}
	if step < len(next.Type.Older) {
		old := next.Type.Older[step]
		if !bytes.Equal(old.Schema.JSON(), prev.Type.Schema.JSON()) {
			r.Problems = append(r.Problems, fmt.Sprintf("%s, the schema %s declares for %s, is not the schema %s shipped for it", old.SchemaFile, next.Name, vp, prev.Name))
		}
	}
	changes, err := compare(prev.Type.Schema.JSON(), next.Type.Schema.JSON())
	if err != nil {
		return nil, err
	}
	var rules []spec.Rule
	if conv := next.Addon.Spec.Config.Conversion; conv != nil && step < len(conv.Versions) {
		for _, v := range conv.Versions[step:] {
			rules = append(rules, v.Rules...)
		}
	}
	for _, c := range changes {
		c.CoveredBy = cover(c, rules, next.Type.Defaults)
		if c.CoveredBy == "" {
			hint := "add a conversion rule (move, rename, delete, set or fail) for it"
			if step == len(next.Type.Older) {
				hint = "the config version is still " + vp + ": give the type a new apiVersion and a conversion step from " + vp
			}
			r.Problems = append(r.Problems, fmt.Sprintf("%s, and nothing covers it: %s", c.Detail, hint))
		}
		r.Changes = append(r.Changes, c)
	}
	if prev.Files != nil { // nil: from config blobs only (Plan): no packed objects to run
		r.runPrevious(prev, next)
	}
	return r, r.err()
}

// cover names what handles change c: a rule of the steps from the
// previous version, or the new packed defaults for a required field.
func cover(c Change, rules []spec.Rule, defaults any) string {
	under := func(p string) bool {
		return p != "" && (c.Path == p || strings.HasPrefix(c.Path, p+".") || strings.HasPrefix(c.Path, p+"["))
	}
	for _, r := range rules {
		var hit bool
		switch {
		case r.Fail != nil:
			hit = selects(r.If, field(addressable(c.Path)))
		case c.Kind == "required":
			hit = (r.Default != nil && under(r.Default.Path)) || (r.Set != nil && under(r.Set.Path)) || (r.Move != nil && under(r.Move.To)) ||
				(r.Rename != nil && under(renamed(r.Rename)))
		default: // removed, type, constraint: the old value must be moved, deleted or replaced
			hit = (r.Move != nil && under(r.Move.From)) || (r.Rename != nil && under(r.Rename.Path)) || (r.Delete != nil && under(r.Delete.Path)) ||
				(c.Kind != "removed" && r.Set != nil && under(r.Set.Path))
		}
		if hit {
			return "rule " + convert.Describe(r)
		}
	}
	if c.Kind == "required" && present(defaults, c.Path) {
		return "packed defaults"
	}
	return ""
}

// selects reports whether the CEL expression expr names the field
// selection sel ("spec.replicas") as a whole: not spec.replicasMax, not
// other.spec.replicas. A deeper selection (spec.replicas.min) names it too;
// the whole object "spec" only when it is not followed by a field.
func selects(expr, sel string) bool {
	ident := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(expr[i:], sel)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(sel)
		before := start == 0 || !ident(expr[start-1]) && expr[start-1] != '.'
		after := end == len(expr) || !ident(expr[end]) && (sel != "spec" || expr[end] != '.')
		if before && after {
			return true
		}
		i = start + 1
	}
}

// addressable is path up to its first list item or map value ("[*]",
// ".*"): what a rule's dotted path or a CEL field selection can name.
func addressable(path string) string {
	if i := strings.IndexAny(path, "[*"); i >= 0 {
		return strings.TrimSuffix(path[:i], ".")
	}
	return path
}

func renamed(r *spec.RenameRule) string {
	if i := strings.LastIndex(r.Path, "."); i >= 0 {
		return r.Path[:i+1] + r.To
	}
	return r.To
}

func present(v any, path string) bool {
	_, ok := schema.Lookup(v, strings.Split(path, "."))
	return ok
}

// runPrevious converts the previous release's packed defaults and test
// vectors with the new release, and resolves them.
func (r *Report) runPrevious(prev, next Release) {
	run := func(name, apiVersion string, specValue any) {
		if !slices.Contains(next.Type.Versions(), apiVersion) {
			r.Checked = append(r.Checked, fmt.Sprintf("%s: skipped, %s does not read %s", name, next.Name, apiVersion))
			return
		}
		if next.Type.Chain != nil {
			if _, err := next.Type.Chain.ConvertStable(apiVersion, specValue, name); err != nil {
				r.Problems = append(r.Problems, err.Error())
				return
			}
		}
		obj, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": next.Type.Kind, "spec": specValue})
		if err == nil {
			_, err = next.Type.Resolve(obj, name)
		}
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			return
		}
		r.Checked = append(r.Checked, name+": converts and resolves")
	}
	if prev.Type.Defaults != nil {
		run(prev.Name+" "+prev.Type.DefaultsFile, prev.Type.APIVersion, prev.Type.Defaults)
	}
	conv := prev.Addon.Spec.Config.Conversion
	if conv == nil {
		return
	}
	for _, tv := range conv.Tests {
		for _, p := range []string{tv.Input, tv.Output} {
			name := prev.Name + " " + p
			data, err := fs.ReadFile(prev.Files, p)
			if err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", name, err))
				continue
			}
			obj, err := schema.ParseObjectAnyVersion(data, name, prev.Type.APIVersion, prev.Type.Kind)
			if err != nil {
				r.Problems = append(r.Problems, err.Error())
				continue
			}
			run(name, obj.APIVersion, obj.Spec)
		}
	}
}

func (r *Report) err() error {
	if len(r.Problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w:\n%s", ErrBreaks, strings.Join(r.Problems, "\n"))
}

// CheckPackages runs Check on two opened packages.
func CheckPackages(prev, next *deliver.Package) (*Report, error) {
	var rels [2]Release
	for i, p := range []*deliver.Package{prev, next} {
		t, err := p.ConfigType()
		if err != nil {
			return nil, err
		}
		rels[i] = Release{Name: p.Name, Addon: p.Addon, Type: t, Files: p.Files}
	}
	return Check(rels[0], rels[1])
}

// WriteText writes the report for a person: each change and what covers
// it, each object checked, and, when the check passed, that the previous
// release can upgrade to next.
func (r *Report) WriteText(w io.Writer, next string, passed bool) error {
	if r.NoPrevious != "" {
		_, err := fmt.Fprintf(w, "no previous release: %s: nothing to check\n", r.NoPrevious)
		return err
	}
	for _, c := range r.Changes {
		by := c.CoveredBy
		if by == "" {
			by = "NOT COVERED"
		}
		fmt.Fprintf(w, "%s: %s\n", c.Detail, by)
	}
	for _, c := range r.Checked {
		fmt.Fprintln(w, c)
	}
	if passed {
		fmt.Fprintf(w, "%s can upgrade to %s: %s → %s\n", r.Previous, next, r.PreviousConfigVersion, r.ConfigVersion)
	}
	return nil
}
