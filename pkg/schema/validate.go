package schema

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrInvalid is what every *ValidationError unwraps to.
var ErrInvalid = errdef.New(errdef.ErrInvalid, "config does not match schema")

// FieldError is one failing field: Path is dotted and rooted at "spec"
// (spec.upstreams[1], spec.labels["app.kubernetes.io/name"]).
type FieldError struct {
	Path, Message string
}

func (e FieldError) String() string { return e.Path + ": " + e.Message }

// ValidationError lists every failing field, sorted by path.
type ValidationError struct {
	Errors []FieldError
}

// Error joins the field errors, one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		lines[i] = fe.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Validate validates a config spec (decoded JSON: map[string]any, []any, string,
// float64 or json.Number, bool, nil) and returns nil or a *ValidationError with
// every failing field.
func (s *Schema) Validate(spec any) error { return s.validate(spec, false) }

// ValidatePartial is Validate for an object that is only part of what will
// be validated: a user's config object before it is merged over packed
// defaults it cannot see (upgrade plan reads a candidate's config blob, not
// its content). Missing required properties are not reported; everything
// the object holds is checked as Validate checks it.
func (s *Schema) ValidatePartial(spec any) error { return s.validate(spec, true) }

func (s *Schema) validate(spec any, partial bool) error {
	err := s.compiled.Validate(spec)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	out := flatten(ve, func(loc []string) string { return fieldPath(spec, loc) }, partial)
	if partial && len(out) == 0 {
		return nil // only missing required properties failed
	}
	return &ValidationError{Errors: out}
}

// flatten lists the leaf errors of a jsonschema error tree, sorted by
// location, with paths rendered by path; partial leaves out missing required
// properties.
func flatten(ve *jsonschema.ValidationError, path func(loc []string) string, partial bool) []FieldError {
	c := collector{path: path, seen: map[FieldError]bool{}, partial: partial}
	c.collect(ve)
	slices.SortStableFunc(c.out, func(a, b located) int {
		if n := compareLoc(a.loc, b.loc); n != 0 {
			return n
		}
		return strings.Compare(a.Message, b.Message)
	})
	out := make([]FieldError, len(c.out))
	for i, l := range c.out {
		out[i] = l.FieldError
	}
	return out
}

type located struct {
	FieldError
	loc []string // instance location tokens, for sorting
}

type collector struct {
	path func(loc []string) string
	out  []located
	seen map[FieldError]bool
	// partial leaves out missing required properties (ValidatePartial).
	partial bool
}

func (c *collector) add(loc []string, msg string) {
	fe := FieldError{Path: c.path(loc), Message: msg}
	if !c.seen[fe] {
		c.seen[fe] = true
		c.out = append(c.out, located{fe, loc})
	}
}

// collect flattens jsonschema's error tree to leaf errors.
func (c *collector) collect(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if c.partial {
			return
		}
		for _, p := range k.Missing {
			c.add(e.InstanceLocation, fmt.Sprintf("missing property '%s'", p))
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			c.add(append(slices.Clone(e.InstanceLocation), p), "unknown field")
		}
	case *kind.AnyOf:
		c.alternatives(e)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			c.alternatives(e)
		} else {
			c.add(e.InstanceLocation, fmt.Sprintf("must match exactly one alternative, but matched alternatives %d and %d",
				k.Subschemas[0], k.Subschemas[1]))
		}
	default:
		if len(e.Causes) == 0 {
			c.add(e.InstanceLocation, describe(e.ErrorKind))
		}
		for _, cause := range e.Causes {
			c.collect(cause)
		}
	}
}

// alternatives reports a failed anyOf/oneOf as one error at its location: either
// "must be of type integer or string" when every alternative failed only on type,
// or the alternatives' errors joined with "; or ".
func (c *collector) alternatives(e *jsonschema.ValidationError) {
	var types, msgs []string
	onlyType := true
	for _, branch := range e.Causes {
		sub := collector{path: c.path, seen: map[FieldError]bool{}, partial: c.partial}
		sub.collect(branch)
		if c.partial && len(sub.out) == 0 {
			return // the branch failed only on a property that may be supplied later
		}
		var parts []string
		for _, l := range sub.out {
			if l.Path == c.path(e.InstanceLocation) {
				parts = append(parts, l.Message)
			} else {
				parts = append(parts, l.String())
			}
		}
		msgs = append(msgs, strings.Join(parts, ", "))
		if t, ok := branch.ErrorKind.(*kind.Type); ok && len(branch.Causes) == 0 {
			types = append(types, t.Want...)
		} else {
			onlyType = false
		}
	}
	if onlyType && len(types) > 0 {
		got := ""
		if t, ok := e.Causes[0].ErrorKind.(*kind.Type); ok {
			got = t.Got
		}
		c.add(e.InstanceLocation, fmt.Sprintf("must be of type %s, got %s", strings.Join(slices.Compact(types), " or "), got))
		return
	}
	c.add(e.InstanceLocation, "must match one of the alternatives: "+strings.Join(msgs, "; or "))
}

// describe translates a leaf error kind to a short message.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be of type %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Minimum:
		return "must be >= " + ratString(k.Want.RatString(), k.Want.IsInt())
	case *kind.Maximum:
		return "must be <= " + ratString(k.Want.RatString(), k.Want.IsInt())
	case *kind.ExclusiveMinimum:
		return "must be > " + ratString(k.Want.RatString(), k.Want.IsInt())
	case *kind.ExclusiveMaximum:
		return "must be < " + ratString(k.Want.RatString(), k.Want.IsInt())
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want.RatString(), k.Want.IsInt())
	case *kind.MinLength:
		return "must be at least " + count(k.Want, "character", "characters") + " long"
	case *kind.MaxLength:
		return "must be at most " + count(k.Want, "character", "characters") + " long"
	case *kind.Pattern:
		return fmt.Sprintf("%q does not match pattern %q", k.Got, k.Want)
	case *kind.Format:
		if k.Err != nil && k.Want == "regex" {
			return fmt.Sprintf("%s is not a valid regex: %v", display(k.Got), k.Err)
		}
		return fmt.Sprintf("%s is not a valid %s", display(k.Got), k.Want)
	case *kind.MinItems:
		return "must have at least " + count(k.Want, "item", "items")
	case *kind.MaxItems:
		return "must have at most " + count(k.Want, "item", "items")
	case *kind.MinProperties:
		return "must have at least " + count(k.Want, "property", "properties")
	case *kind.MaxProperties:
		return "must have at most " + count(k.Want, "property", "properties")
	case *kind.UniqueItems:
		return fmt.Sprintf("items [%d] and [%d] are duplicates", k.Duplicates[0], k.Duplicates[1])
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		return "must be one of: " + strings.Join(want, ", ")
	case *kind.Const:
		return "must be " + display(k.Want)
	case *kind.FalseSchema:
		return "not allowed"
	case *kind.RefCycle:
		return "cannot be validated: the schema's $ref " + strings.TrimPrefix(k.URL, rootURL) + " refers to itself"
	case *kind.InvalidJsonValue:
		return fmt.Sprintf("unsupported value of Go type %T", k.Value)
	default:
		return k.LocalizedString(message.NewPrinter(language.English))
	}
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ratString shows a *big.Rat bound: integers as such, fractions as decimals.
func ratString(rat string, isInt bool) string {
	if isInt {
		return rat
	}
	num, den, _ := strings.Cut(rat, "/")
	n, err1 := strconv.ParseFloat(num, 64)
	d, err2 := strconv.ParseFloat(den, 64)
	if err1 != nil || err2 != nil || d == 0 {
		return rat
	}
	return strconv.FormatFloat(n/d, 'g', -1, 64)
}

func display(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case []any, map[string]any:
		b, err := canonicalJSON(v)
		if err != nil || len(b) > 80 {
			return "a specific value"
		}
		return string(b)
	default:
		return fmt.Sprint(v)
	}
}

// fieldPath renders instance location tokens as a dotted path rooted at
// "spec", walking the instance to tell array indexes from map keys.
func fieldPath(root any, loc []string) string {
	var b strings.Builder
	b.WriteString("spec")
	cur := root
	for _, tok := range loc {
		switch v := cur.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			cur = nil
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(v) {
				cur = v[i]
			}
		case map[string]any:
			writeKey(&b, tok)
			cur = v[tok]
		default:
			writeKey(&b, tok)
			cur = nil
		}
	}
	return b.String()
}

func writeKey(b *strings.Builder, k string) {
	ident := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			ident = false
			break
		}
	}
	if ident {
		b.WriteString("." + k)
	} else {
		b.WriteString("[" + strconv.Quote(k) + "]")
	}
}

// compareLoc orders locations token by token, numerically where both tokens
// are numbers, so spec.items[2] sorts before spec.items[10].
func compareLoc(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ai, errA := strconv.Atoi(a[i])
		bi, errB := strconv.Atoi(b[i])
		if errA == nil && errB == nil {
			if n := cmp.Compare(ai, bi); n != 0 {
				return n
			}
		} else if n := strings.Compare(a[i], b[i]); n != 0 {
			return n
		}
	}
	return cmp.Compare(len(a), len(b))
}
