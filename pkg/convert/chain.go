package convert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Chain converts config objects of the older versions of a config type to
// its current version. It is immutable and safe for concurrent use.
type Chain struct {
	kind     string
	current  string
	versions []string // oldest first, current last
	steps    []step   // steps[i] converts versions[i] to versions[i+1]
}

type step struct {
	from, to string
	rules    []rule
}

type rule struct {
	spec.Rule
	field string // addon.yaml field, for errors
	cond  *expr  // the compiled If, nil without one
	set   *expr  // the compiled Set.Expression
	value any    // the decoded Default.Value
}

// New compiles the conversion of config type c: nil when c declares none.
// Every CEL expression is compiled and its worst-case cost estimated; an
// expression that does not compile, is not a bool where one is wanted, or
// may exceed CostLimit is refused, naming its addon.yaml field; so is a rule
// after which the static growth estimate exceeds MaxGrowth.
func New(c *spec.Config) (*Chain, error) { return newChain(c, options{}) }

// options are the knobs tests turn.
type options struct {
	// noGrowth skips the growth estimate, so that tests reach the bounds
	// checked while converting with rules the estimate would refuse (a
	// package built before it, or growth it does not see).
	noGrowth bool
}

func newChain(c *spec.Config, opts options) (*Chain, error) {
	if c == nil || c.Conversion == nil {
		return nil, nil
	}
	env, err := newEnv()
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}
	ch := &Chain{kind: c.Kind, current: c.APIVersion}
	g := newGrowth()
	for i, v := range c.Conversion.Versions {
		ch.versions = append(ch.versions, v.APIVersion)
		st := step{from: v.APIVersion, to: v.To}
		for j, r := range v.Rules {
			cr := rule{Rule: r, field: fmt.Sprintf("spec.config.conversion.versions[%d].rules[%d]", i, j)}
			if r.Kind() == "" {
				return nil, fmt.Errorf("%s: %w: must hold exactly one of move, rename, default, delete, set, fail", cr.field, ErrConvert)
			}
			if r.If != "" {
				if cr.cond, err = compileBounded(env, r.If, true, cr.field+".if"); err != nil {
					return nil, err
				}
			}
			if r.Set != nil {
				if cr.set, err = compileBounded(env, r.Set.Expression, false, cr.field+".set.expression"); err != nil {
					return nil, err
				}
			}
			if r.Default != nil {
				if cr.value, err = schema.Decode(r.Default.Value, cr.field+".default.value"); err != nil {
					return nil, fmt.Errorf("%w: %w", ErrConvert, err)
				}
			}
			if !opts.noGrowth {
				var a *cel.Ast
				field := cr.field
				if cr.set != nil {
					a, field = cr.set.ast, field+".set.expression"
				}
				if err := checkGrowth(g, r, a, field); err != nil {
					return nil, err
				}
			}
			st.rules = append(st.rules, cr)
		}
		ch.steps = append(ch.steps, st)
	}
	ch.versions = append(ch.versions, c.APIVersion)
	return ch, nil
}

// Versions returns the versions the chain reads, oldest first, the current
// one last.
func (c *Chain) Versions() []string { return slices.Clone(c.versions) }

// Current is the version every object is converted to.
func (c *Chain) Current() string { return c.current }

// Step is what one step of a conversion did.
type Step struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Rules []string `json:"rules"`
}

// Result is a converted spec and the steps taken.
type Result struct {
	APIVersion string
	Spec       any
	Steps      []Step
}

// Summary is "converted v1alpha1 → v1beta1", or "" when nothing was converted.
func (r *Result) Summary() string {
	if len(r.Steps) == 0 {
		return ""
	}
	return fmt.Sprintf("converted %s → %s", short(r.Steps[0].From), short(r.Steps[len(r.Steps)-1].To))
}

// Convert converts specValue, the spec of an object of apiVersion, to the
// current version. name is the object's file, for errors. specValue is not
// modified. The current version converts to itself with no steps; a version
// newer than the current one, or one the chain does not read, is an error.
func (c *Chain) Convert(apiVersion string, specValue any, name string) (*Result, error) {
	if apiVersion == c.current {
		return &Result{APIVersion: apiVersion, Spec: specValue}, nil
	}
	i := slices.Index(c.versions, apiVersion)
	if i < 0 {
		return nil, c.unknown(apiVersion, name)
	}
	s, ok := schema.DeepCopy(specValue).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %w: spec of %s must be an object to be converted", name, ErrConvert, apiVersion)
	}
	res := &Result{}
	var b budget
	for _, st := range c.steps[i:] {
		applied, err := st.apply(s, &b)
		if err != nil {
			// %w: a caller may want the FailError (upgrade plan lists its rule).
			return nil, fmt.Errorf("%s: %w: cannot convert %s → %s: %w", name, ErrConvert, short(st.from), short(st.to), err)
		}
		res.Steps = append(res.Steps, Step{From: st.from, To: st.to, Rules: applied})
	}
	// default rules add values after the last evaluation measured the spec.
	if err := measure(s, newMeter("the converted spec", &budget{}), 0); err != nil {
		return nil, fmt.Errorf("%s: %w: cannot convert %s → %s: %v", name, ErrConvert, short(apiVersion), short(c.current), err)
	}
	res.APIVersion, res.Spec = c.current, s
	return res, nil
}

func (c *Chain) unknown(apiVersion, name string) error {
	if err := NewerError(apiVersion, c.current, name); err != nil {
		return err
	}
	return Unknown(apiVersion, name, c.versions)
}

// NewerError is the error for an object of apiVersion, newer than the
// current version: nil when it is not newer.
func NewerError(apiVersion, current, name string) error {
	if !Newer(apiVersion, current) {
		return nil
	}
	return fmt.Errorf("%s: %w: apiVersion %q is newer than the config version of this add-on, %q: it converts only older versions up, never down (use a release of the add-on that reads %s)",
		name, ErrConvert, apiVersion, current, short(apiVersion))
}

// Unknown is the error for an apiVersion that is none of versions.
func Unknown(apiVersion, name string, versions []string) error {
	q := make([]string, len(versions))
	for i, v := range versions {
		q[i] = fmt.Sprintf("%q", v)
	}
	return fmt.Errorf("%s: %w: apiVersion: got %q, want one of %s", name, ErrConvert, apiVersion, strings.Join(q, ", "))
}

// Runs is how many times ConvertStable converts an object.
const Runs = 8

// ConvertStable converts like Convert, Runs times, and fails when the
// results differ: rules whose output varies (a list built from a map and
// not sorted) are refused by the builder (specs/config.md section 9.6).
func (c *Chain) ConvertStable(apiVersion string, specValue any, name string) (*Result, error) {
	var first *Result
	var firstJSON []byte
	for range Runs {
		r, err := c.Convert(apiVersion, specValue, name)
		if err != nil {
			return nil, err
		}
		js, err := json.Marshal(r.Spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", name, ErrConvert, err)
		}
		if first == nil {
			first, firstJSON = r, js
			continue
		}
		if string(js) != string(firstJSON) {
			return nil, fmt.Errorf("%s: %w: converting it twice gave different results, %s and %s: the rules are not deterministic (CEL iterates maps in no fixed order: sort a list built from a map, with sort() or sortBy())",
				name, ErrConvert, firstJSON, js)
		}
	}
	return first, nil
}
