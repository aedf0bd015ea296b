package upgrade

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// The verdicts of a plan (specs/stack.md section 4.7 item 5): a candidate
// breaks the user's values (exit 3), or there are upgrades (exit 10, the
// class of a lock that drifted from what is published).
var (
	ErrValuesBreak = errdef.New(errdef.ErrInvalid, "a candidate breaks the values")
	ErrUpgradable  = errdef.New(stack.ErrDrift, "upgrades are available")
)

// Fetcher loads a reference's manifest and config blob — never the content
// layer — resolved once, verified and bound to name (the repository's when
// ""); *consume.Consumer is one.
type Fetcher interface {
	Load(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, error)
}

// PlanOptions are where a plan reads from.
type PlanOptions struct {
	Tags  semver.TagLister
	Fetch Fetcher
}

// Subject is one add-on to plan for: where it is now and what binds it.
type Subject struct {
	// Name is the add-on name the artifacts must hold ("" for the
	// repository's last path element).
	Name string
	// Ref is the current release: REPO:TAG or REPO@DIGEST.
	Ref registry.Reference
	// Version is the version Ref must hold ("" to take the tag's claim).
	Version string
	// Ranges bind the candidates (a stack's and its dependents'); none
	// admits every version.
	Ranges []string
	// Policy is the upgrade policy ("" for the default).
	Policy string
	// Pinned says the stack pins the add-on by digest: no candidates.
	Pinned bool
	// Values is the user's config object (nil for none), ValuesName its
	// file as messages show it.
	Values     []byte
	ValuesName string
}

// Plan is what upgrading each add-on would do (specs/cli-output.md).
type Plan struct {
	Addons []AddonPlan `json:"addons"`
}

// AddonPlan is one add-on's current release and its candidates.
type AddonPlan struct {
	Name       string        `json:"name"`
	Repository string        `json:"repository"`
	Version    string        `json:"version"`
	Digest     digest.Digest `json:"digest"`
	// Policy describes the upgrade policy's window around Version.
	Policy string `json:"policy"`
	Values string `json:"values,omitempty"`
	Pinned bool   `json:"pinned,omitempty"`
	// NewestWithinPolicy and Newest are above Version, or "".
	NewestWithinPolicy string      `json:"newestWithinPolicy,omitempty"`
	Newest             string      `json:"newest,omitempty"`
	Candidates         []Candidate `json:"candidates"`
}

// Candidate is one version the add-on could move to.
type Candidate struct {
	Version       string        `json:"version"`
	Tag           string        `json:"tag"`
	Digest        digest.Digest `json:"digest"`
	WithinPolicy  bool          `json:"withinPolicy"`
	ConfigVersion string        `json:"configVersion,omitempty"`
	// Conversion is what converting the values would do; empty when they
	// are of the candidate's version already, or there are none.
	Conversion []convert.Step `json:"conversion,omitempty"`
	// Breaks is every reason the values would not convert or validate.
	Breaks []Break `json:"breaks,omitempty"`
	// CheckUpgrade is config check-upgrade between the current release
	// and the candidate, from their config blobs.
	CheckUpgrade *Report `json:"checkUpgrade"`
}

// Break is one way a candidate breaks the values: the field, and the fail
// rule or the schema's message.
type Break struct {
	Field   string `json:"field"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
}

// MakePlan plans every subject in order. Errors are of reading: a plan
// that finds breaks or upgrades returns them from Plan.Err.
func MakePlan(ctx context.Context, opts PlanOptions, subjects []Subject) (*Plan, error) {
	p := &Plan{Addons: []AddonPlan{}}
	for _, s := range subjects {
		a, err := planOne(ctx, opts, s)
		if err != nil {
			return nil, err
		}
		p.Addons = append(p.Addons, *a)
	}
	return p, nil
}

func planOne(ctx context.Context, opts PlanOptions, s Subject) (*AddonPlan, error) {
	cur, err := opts.Fetch.Load(ctx, s.Ref, s.Name)
	if err != nil {
		return nil, err
	}
	v, err := semver.Parse(cur.Addon.Spec.Version)
	if err == nil && s.Version != "" && s.Version != v.String() {
		err = fmt.Errorf("%w: the lock says %s, the signed add-on %s", stack.ErrLock, s.Version, v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cur.Ref, err)
	}
	a := &AddonPlan{Name: cur.Addon.Metadata.Name, Repository: s.Ref.Repo(), Version: v.String(), Digest: cur.Descriptor.Digest,
		Policy: stack.DescribePolicy(s.Policy, v), Values: s.ValuesName, Pinned: s.Pinned, Candidates: []Candidate{}}
	if s.Pinned {
		return a, nil
	}
	within, newest, err := candidates(ctx, opts, s, v)
	if err != nil {
		return nil, err
	}
	prev, err := release(ctx, cur, s.Ref.String())
	if err != nil {
		return nil, err
	}
	for _, t := range []*semver.Tagged{within, newest} {
		if t == nil || len(a.Candidates) > 0 && a.Candidates[0].Tag == t.Tag {
			continue
		}
		ref := s.Ref
		ref.Tag, ref.Digest = t.Tag, ""
		c, err := candidate(ctx, opts, ref, s, prev)
		if err != nil {
			return nil, err
		}
		c.WithinPolicy = t == within
		a.Candidates = append(a.Candidates, *c)
	}
	if within != nil {
		a.NewestWithinPolicy = within.Version.String()
	}
	if newest != nil {
		a.Newest = newest.Version.String()
	}
	return a, nil
}

// candidates reads the repository's versions and returns the newest above
// cur that the ranges admit within the policy, and the newest at all (nil
// for none).
func candidates(ctx context.Context, opts PlanOptions, s Subject, cur semver.Version) (within, newest *semver.Tagged, err error) {
	var ranges []semver.Range
	for _, r := range s.Ranges {
		rng, err := semver.ParseRange(r)
		if err != nil {
			return nil, nil, err
		}
		ranges = append(ranges, rng)
	}
	l, err := semver.ListRepository(ctx, opts.Tags, s.Ref, semver.RepoOptions{})
	if err != nil {
		return nil, nil, err
	}
	var all, inPolicy []semver.Tagged
	for _, lv := range l.Versions {
		v := semver.MustParse(lv.Version) // listed versions are strict
		if v.Compare(cur) <= 0 || slices.ContainsFunc(ranges, func(r semver.Range) bool { return !r.Match(v) }) {
			continue
		}
		all = append(all, semver.Tagged{Tag: lv.Tag, Version: v})
		if stack.Within(s.Policy, cur, v) {
			inPolicy = append(inPolicy, all[len(all)-1])
		}
	}
	pick := func(ts []semver.Tagged) (*semver.Tagged, error) {
		if len(ts) == 0 {
			return nil, nil
		}
		t, tied := semver.Pick(ts, false)
		if len(tied) > 1 {
			return nil, fmt.Errorf("%s: tags %s have equal precedence: %w", s.Ref.Repo(), strings.Join(tied, ", "), semver.ErrAmbiguous)
		}
		return &t, nil
	}
	if within, err = pick(inPolicy); err != nil {
		return nil, nil, err
	}
	newest, err = pick(all)
	return within, newest, err
}

// release is the config side of a loaded artifact, from its config blob.
func release(ctx context.Context, l *artifact.Loaded, name string) (Release, error) {
	t, err := config.FromBlob(ctx, l.Addon, l.Schema, l.Conversion, schema.DefaultLimits())
	if err != nil {
		return Release{}, fmt.Errorf("%s: %w", l.Ref, err)
	}
	return Release{Name: name, Addon: l.Addon, Type: t}, nil
}

// candidate fetches ref (manifest and config blob), converts and checks
// the values with it, and runs check-upgrade from prev.
func candidate(ctx context.Context, opts PlanOptions, ref registry.Reference, s Subject, prev Release) (*Candidate, error) {
	l, err := opts.Fetch.Load(ctx, ref, s.Name)
	if err != nil {
		return nil, err
	}
	next, err := release(ctx, l, ref.String())
	if err != nil {
		return nil, err
	}
	c := &Candidate{Version: l.Addon.Spec.Version, Tag: ref.Tag, Digest: l.Descriptor.Digest}
	if next.Type != nil {
		c.ConfigVersion = next.Type.APIVersion
	}
	if c.CheckUpgrade, err = Check(prev, next); c.CheckUpgrade == nil {
		return nil, err
	}
	if s.Values == nil {
		return c, nil
	}
	if next.Type == nil {
		c.Breaks = append(c.Breaks, Break{Message: ref.String() + " declares no config type: values cannot be given"})
		return c, nil
	}
	obj, res, err := next.Type.Convert(s.Values, s.ValuesName)
	if err != nil {
		c.Breaks = append(c.Breaks, conversionBreak(err))
		return c, nil
	}
	if res != nil {
		c.Conversion = res.Steps
	}
	var ve *schema.ValidationError
	if err := next.Type.Schema.ValidatePartial(obj.Spec); errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			c.Breaks = append(c.Breaks, Break{Field: fe.Path, Message: fe.Message})
		}
	} else if err != nil {
		c.Breaks = append(c.Breaks, Break{Message: err.Error()})
	}
	return c, nil
}

// specField is a field selection of a CEL condition: spec.replicas.
var specField = regexp.MustCompile(`\bspec(\.[A-Za-z_][A-Za-z0-9_]*)+`)

// conversionBreak names what a failed conversion broke: for a fail rule,
// the fields its condition looks at and the rule.
func conversionBreak(err error) Break {
	var fe *convert.FailError
	if !errors.As(err, &fe) {
		return Break{Field: "apiVersion", Message: err.Error()}
	}
	fields := slices.Compact(slices.Sorted(slices.Values(specField.FindAllString(fe.If, -1))))
	rule := "fail"
	if fe.If != "" {
		rule += " if " + fe.If
	}
	return Break{Field: strings.Join(fields, ", "), Rule: rule, Message: fe.Message}
}

// Err is the plan's verdict: ErrValuesBreak listing every break, else
// ErrUpgradable naming the candidates, else nil (nothing to do).
func (p *Plan) Err() error {
	var breaks, ups []string
	for _, a := range p.Addons {
		for _, c := range a.Candidates {
			ups = append(ups, a.Name+" "+a.Version+" → "+c.Version)
			for _, b := range c.Breaks {
				breaks = append(breaks, fmt.Sprintf("%s %s: %s", a.Name, c.Version, b))
			}
		}
	}
	switch {
	case len(breaks) > 0:
		return fmt.Errorf("%w:\n  %s", ErrValuesBreak, strings.Join(breaks, "\n  "))
	case len(ups) > 0:
		return fmt.Errorf("%w: %s", ErrUpgradable, strings.Join(ups, ", "))
	}
	return nil
}

// String is "FIELD: MESSAGE (rule RULE)".
func (b Break) String() string {
	s := b.Message
	if b.Field != "" {
		s = b.Field + ": " + s
	}
	if b.Rule != "" {
		s += " (rule " + b.Rule + ")"
	}
	return s
}
