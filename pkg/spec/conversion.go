package spec

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Conversion (addonpack.dev/v1alpha2) declares the older versions of the
// config type that the add-on still reads, and how each is converted to the
// next one, up to spec.config.apiVersion (specs/config.md section 8).
type Conversion struct {
	// Versions are the older versions, oldest first: a linear chain in which
	// Versions[i].To is Versions[i+1].APIVersion and the last To is the
	// current version.
	Versions []ConfigVersion `json:"versions"`
	// Tests are the test vectors the builder runs through the chain.
	Tests []ConversionTest `json:"tests,omitempty"`
}

// ConfigVersion is one older version of the config type and the step that
// converts its objects to the version To.
type ConfigVersion struct {
	APIVersion string `json:"apiVersion"`
	// Schema is the package path of the schema of this version's spec.
	Schema string `json:"schema"`
	To     string `json:"to"`
	Rules  []Rule `json:"rules,omitempty"`
}

// ConversionTest is a test vector: two package paths, a config object of any
// version the add-on reads, and the object of the current version that the
// chain must turn it into.
type ConversionTest struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// Rule is one conversion rule: exactly one of its kinds is set. If, when set,
// is a CEL expression; the rule applies only when it evaluates to true.
type Rule struct {
	If      string       `json:"if,omitempty"`
	Move    *MoveRule    `json:"move,omitempty"`
	Rename  *RenameRule  `json:"rename,omitempty"`
	Default *DefaultRule `json:"default,omitempty"`
	Delete  *DeleteRule  `json:"delete,omitempty"`
	Set     *SetRule     `json:"set,omitempty"`
	Fail    *FailRule    `json:"fail,omitempty"`
}

// MoveRule moves the value at From (a dotted path under spec) to To.
type MoveRule struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// RenameRule renames the last property of Path to To, in the same object.
type RenameRule struct {
	Path string `json:"path"`
	To   string `json:"to"`
}

// DefaultRule sets Path to Value when Path is absent.
type DefaultRule struct {
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// DeleteRule removes Path.
type DeleteRule struct {
	Path string `json:"path"`
}

// SetRule sets Path to the value of the CEL Expression.
type SetRule struct {
	Path       string `json:"path"`
	Expression string `json:"expression"`
}

// FailRule stops the conversion with Message: removed behaviour that needs
// a person.
type FailRule struct {
	Message string `json:"message"`
}

// Kind names the rule's kind ("move", "rename", …), or "" when not exactly
// one kind is set.
func (r Rule) Kind() string {
	var kinds []string
	for _, k := range []struct {
		name string
		set  bool
	}{{"move", r.Move != nil}, {"rename", r.Rename != nil}, {"default", r.Default != nil},
		{"delete", r.Delete != nil}, {"set", r.Set != nil}, {"fail", r.Fail != nil}} {
		if k.set {
			kinds = append(kinds, k.name)
		}
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// MaxConversionRules and MaxConversionCEL bound the rules of all the steps
// of spec.config.conversion together, and the bytes of their CEL
// expressions: every consumer that loads the config type compiles them all
// (about 1ms a short expression, 85ms one of the 4096 characters the schema
// allows), and the schema alone (32 versions of 256 rules) would let a
// package make that minutes.
const (
	MaxConversionRules = 1024
	MaxConversionCEL   = 64 << 10
)

// checkConversion applies the rules of specs/addon-source.md section 3.3
// item 7 to spec.config.conversion.
func (c *Config) checkConversion(add func(field, format string, args ...any)) {
	conv := c.Conversion
	if conv == nil {
		return
	}
	rules, cel := 0, 0
	for _, v := range conv.Versions {
		rules += len(v.Rules)
		for _, r := range v.Rules {
			cel += len(r.If)
			if r.Set != nil {
				cel += len(r.Set.Expression)
			}
		}
	}
	if rules > MaxConversionRules {
		add("spec.config.conversion.versions", "%d rules in all, more than the limit of %d", rules, MaxConversionRules)
	}
	if cel > MaxConversionCEL {
		add("spec.config.conversion.versions", "%d bytes of CEL expressions in all, more than the limit of %d", cel, MaxConversionCEL)
	}
	seen := map[string]bool{c.APIVersion: true}
	for i, v := range conv.Versions {
		field := fmt.Sprintf("spec.config.conversion.versions[%d]", i)
		if seen[v.APIVersion] {
			add(field+".apiVersion", "%q is listed twice (or is the current version)", v.APIVersion)
		}
		seen[v.APIVersion] = true
		if group(v.APIVersion) != group(c.APIVersion) {
			add(field+".apiVersion", "%q is not of the group of spec.config.apiVersion %q", v.APIVersion, c.APIVersion)
		}
		if !LocalPath(v.Schema) || v.Schema == "." {
			add(field+".schema", "%q must be a relative slash-separated file path inside the package", v.Schema)
		}
		next := c.APIVersion
		if i+1 < len(conv.Versions) {
			next = conv.Versions[i+1].APIVersion
		}
		if v.To != next {
			add(field+".to", "is %q, want %q: the versions form one chain, oldest first, that reaches the current version %q", v.To, next, c.APIVersion)
		}
		for j, r := range v.Rules {
			rf := fmt.Sprintf("%s.rules[%d]", field, j)
			kind := r.Kind()
			if kind == "" {
				add(rf, "must hold exactly one of move, rename, default, delete, set, fail")
				continue
			}
			if m := r.Move; m != nil && (m.From == m.To || strings.HasPrefix(m.To+".", m.From+".") || strings.HasPrefix(m.From+".", m.To+".")) {
				add(rf+".move", "from %q and to %q must not be the same field or contain one another", m.From, m.To)
			}
		}
	}
	for i, tv := range conv.Tests {
		for _, p := range []struct{ name, path string }{{"input", tv.Input}, {"output", tv.Output}} {
			if !LocalPath(p.path) || p.path == "." {
				add(fmt.Sprintf("spec.config.conversion.tests[%d].%s", i, p.name), "%q must be a relative slash-separated file path inside the package", p.path)
			}
		}
	}
}

// ConfigAPIVersions returns the config versions the add-on reads, oldest
// first, the current one last; nil without a config type.
func (a *Addon) ConfigAPIVersions() []string {
	c := a.Spec.Config
	if c == nil {
		return nil
	}
	var out []string
	if c.Conversion != nil {
		for _, v := range c.Conversion.Versions {
			out = append(out, v.APIVersion)
		}
	}
	return append(out, c.APIVersion)
}

func group(apiVersion string) string {
	g, _, _ := strings.Cut(apiVersion, "/")
	return g
}
