package convert

import (
	"fmt"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// apply runs the step's rules, in order, on s (modified in place), and
// returns the rules applied, named as in reports. b is what the
// conversion has spent so far (expr.eval).
func (st step) apply(s map[string]any, b *budget) ([]string, error) {
	applied := []string{}
	for _, r := range st.rules {
		if r.cond != nil {
			v, err := r.cond.eval(s, b)
			if err != nil {
				return applied, fmt.Errorf("%s.if: %v", r.field, err)
			}
			b, ok := v.Value().(bool)
			if !ok {
				return applied, fmt.Errorf("%s.if: %q is %s, not a bool", r.field, r.If, v.Type().TypeName())
			}
			if !b {
				continue
			}
		}
		did, err := r.apply(s, b)
		if err != nil {
			return applied, err
		}
		if did {
			applied = append(applied, Describe(r.Rule))
		}
	}
	return applied, nil
}

// apply runs one rule and reports whether it changed s.
func (r rule) apply(s map[string]any, b *budget) (bool, error) {
	switch {
	case r.Move != nil:
		return move(s, r.Move.From, r.Move.To)
	case r.Rename != nil:
		return move(s, r.Rename.Path, sibling(r.Rename.Path, r.Rename.To))
	case r.Default != nil:
		if _, ok := lookup(s, r.Default.Path); ok {
			return false, nil
		}
		if err := set(s, r.Default.Path, schema.DeepCopy(r.value)); err != nil {
			return false, fmt.Errorf("default %s", err)
		}
		return true, nil
	case r.Delete != nil:
		return remove(s, r.Delete.Path), nil
	case r.Set != nil:
		out, err := r.set.eval(s, b)
		if err != nil {
			return false, fmt.Errorf("%s.set: %v", r.field, err)
		}
		v, err := fromCEL(out, newMeter("the result", b), 0)
		if err != nil {
			return false, fmt.Errorf("%s.set: %q: %v", r.field, r.Set.Expression, err)
		}
		if err := set(s, r.Set.Path, v); err != nil {
			return false, fmt.Errorf("set %s", err)
		}
		return true, nil
	case r.Fail != nil:
		return false, &FailError{Rule: Describe(r.Rule), If: r.If, Message: r.Fail.Message}
	}
	return false, fmt.Errorf("%s: no rule kind", r.field)
}

// move moves the value at from to to; nothing when from is absent.
func move(s map[string]any, from, to string) (bool, error) {
	v, ok := lookup(s, from)
	if !ok {
		return false, nil
	}
	if _, taken := lookup(s, to); taken {
		return false, fmt.Errorf("move %s → %s: %s is already set", from, to, to)
	}
	if err := set(s, to, v); err != nil {
		return false, fmt.Errorf("move %s → %s: %v", from, to, err)
	}
	remove(s, from)
	return true, nil
}

// sibling replaces the last property name of path by name.
func sibling(path, name string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[:i+1] + name
		}
	}
	return name
}

// Describe names a rule in reports: "move message → greeting.text".
func Describe(r spec.Rule) string {
	var d string
	switch {
	case r.Move != nil:
		d = fmt.Sprintf("move %s → %s", r.Move.From, r.Move.To)
	case r.Rename != nil:
		d = fmt.Sprintf("rename %s → %s", r.Rename.Path, sibling(r.Rename.Path, r.Rename.To))
	case r.Default != nil:
		d = fmt.Sprintf("default %s = %s", r.Default.Path, r.Default.Value)
	case r.Delete != nil:
		d = "delete " + r.Delete.Path
	case r.Set != nil:
		d = fmt.Sprintf("set %s = %s", r.Set.Path, r.Set.Expression)
	case r.Fail != nil:
		d = "fail: " + r.Fail.Message
	}
	if r.If != "" {
		d += " (if " + r.If + ")"
	}
	return d
}

// FailError is a fail rule that applied: the object needs a person's
// decision. Its text is the rule's message; Rule names the rule as reports
// do and If is its condition, which names the fields it looks at.
type FailError struct {
	Rule, If, Message string
}

func (e *FailError) Error() string { return e.Message }
