package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/spec"
)

// AttestationRule is one of a scope's attestation rules (specs/policy.md,
// Attestation rules): some attestation of PredicateType that verified under
// the scope's signers must satisfy Condition (any, when it is empty).
type AttestationRule struct {
	Name          string
	PredicateType string
	Condition     string
	cond          *convert.Condition
}

// ruleVars are the variables of a rule's condition.
var ruleVars = []string{"predicateType", "predicate", "subject", "addon", "attestations"}

// compile compiles the condition, refusing one that does not compile, is
// not boolean or may cost more than conversion's limit: at load, before
// anything is verified.
func (r *AttestationRule) compile() error {
	if r.Condition == "" || r.cond != nil {
		return nil
	}
	c, err := convert.CompileCondition(r.Condition, ruleVars...)
	if err != nil {
		// %v: the class is the policy's, not conversion's.
		return fmt.Errorf("%w: attestation rule %q: %v", ErrPolicy, r.Name, err)
	}
	r.cond = c
	return nil
}

// names reports whether a condition of rules names the variable v.
func names(rules []AttestationRule, v string) bool {
	for _, r := range rules {
		if r.cond != nil && r.cond.References(v) {
			return true
		}
	}
	return false
}

// RuleResult is the outcome of one attestation rule.
type RuleResult struct {
	Name          string `json:"name"`
	PredicateType string `json:"predicateType"`
	Holds         bool   `json:"holds"`
	// Location is the attestation that satisfied the rule.
	Location string `json:"location,omitempty"`
	// Reasons say, for each attestation examined, why it did not.
	Reasons []string `json:"reasons,omitempty"`
}

// checkRules evaluates the scope's rules over the valid attestations among
// cands. addon is the add-on's {name, version, images}, nil unless a rule
// names it. It returns every rule's result and an error for each rule that
// does not hold.
func checkRules(scope *Scope, cands []candidate, addon map[string]any) ([]RuleResult, []error) {
	var results []RuleResult
	var errs []error
	vars := map[string]any{}
	if addon != nil {
		vars["addon"] = addon
	}
	// Each statement is decoded once, however many rules read it (an SBOM
	// of thousands of components, read by two rules and as attestations).
	decoded := make([]*statementValue, len(cands))
	decode := func(i int) *statementValue {
		if decoded[i] == nil {
			decoded[i] = decodeStatement(cands[i])
		}
		return decoded[i]
	}
	if names(scope.Attestations, "attestations") {
		vars["attestations"] = validPredicates(cands, decode)
	}
	for _, r := range scope.Attestations {
		res := RuleResult{Name: r.Name, PredicateType: r.PredicateType}
		for i, c := range cands {
			if c.Verdict != Valid || c.statement == nil || c.Kind == "signature" || !predicateMatches(r.PredicateType, c.PredicateType) {
				continue
			}
			ok, err := r.holds(c, decode(i), vars)
			if ok {
				res.Holds, res.Location, res.Reasons = true, c.Location, nil
				break
			}
			why := "condition is false"
			if err != nil {
				why = err.Error()
			}
			res.Reasons = append(res.Reasons, c.Location+" (by "+c.by()+"): "+why)
		}
		if !res.Holds {
			if len(res.Reasons) == 0 {
				res.Reasons = []string{"no valid attestation of type " + describePredicate(r.PredicateType)}
			}
			errs = append(errs, fmt.Errorf("%w: scope %q: attestation rule %q (%s) does not hold: %s",
				ErrAttestation, scope.Prefix, r.Name, describePredicate(r.PredicateType), strings.Join(res.Reasons, "; ")))
		}
		results = append(results, res)
	}
	return results, errs
}

// statementValue is a verified statement's predicate and subject decoded
// for CEL (numbers kept exact); err says which of the two is not JSON.
type statementValue struct {
	predicate, subject any
	err                error
}

func decodeStatement(c candidate) *statementValue {
	var v statementValue
	var err error
	if v.predicate, err = jsonValue(c.statement.Predicate); err != nil {
		v.err = fmt.Errorf("predicate: %w", err)
	} else if v.subject, err = jsonValue(c.statement.Subject); err != nil {
		v.err = fmt.Errorf("subject: %w", err)
	}
	return &v
}

// holds evaluates r's condition over c's verified statement, decoded as d;
// shared holds the variables that do not depend on c (addon, attestations).
func (r AttestationRule) holds(c candidate, d *statementValue, shared map[string]any) (bool, error) {
	if r.cond == nil {
		return true, nil
	}
	if d.err != nil {
		return false, d.err
	}
	vars := map[string]any{"predicateType": c.statement.PredicateType, "predicate": d.predicate, "subject": d.subject}
	for k, v := range shared {
		vars[k] = v
	}
	return r.cond.Eval(vars)
}

// validPredicates maps each predicate type to the predicates of the valid
// attestations of that type: what a condition reads as attestations (an
// OpenVEX statement beside a vulnerability report). A statement that is not
// JSON is left out (it cannot have verified as a statement anyway).
func validPredicates(cands []candidate, decode func(int) *statementValue) map[string]any {
	out := map[string]any{}
	for i, c := range cands {
		if c.Verdict != Valid || c.statement == nil || c.Kind == "signature" {
			continue
		}
		d := decode(i)
		if d.err != nil {
			continue
		}
		l, _ := out[c.statement.PredicateType].([]any)
		out[c.statement.PredicateType] = append(l, d.predicate)
	}
	return out
}

// jsonValue decodes raw JSON with numbers kept exact (nil for none).
func jsonValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// loadAddonFacts reads the add-on's name, version and images from the
// config blob of the verified manifest, both fetched by digest (so they are
// the verified artifact's): what a rule's addon names.
func loadAddonFacts(ctx context.Context, t Target, subject ocispec.Descriptor) (map[string]any, error) {
	ref := t.Ref.WithDigest(subject.Digest).String()
	mb, err := t.Client.FetchManifest(ctx, t.Ref, subject)
	if err != nil {
		return nil, err
	}
	m, err := spec.ParseManifest(mb, ref)
	if err != nil {
		return nil, fmt.Errorf("%w: attestation rules name addon, but %s is not an add-on artifact: %w", ErrAttestation, ref, err)
	}
	cb, err := t.Client.FetchBlobBytes(ctx, t.Ref, m.Config, spec.MaxDocumentSize)
	if err != nil {
		return nil, err
	}
	cfg, err := spec.ParseConfigBlob(cb, ref+" config "+m.Config.Digest.String())
	if err != nil {
		return nil, fmt.Errorf("%w: attestation rules name addon: %w", ErrAttestation, err)
	}
	images := make([]any, 0, len(cfg.Addon.Spec.Images))
	for _, i := range cfg.Addon.Spec.Images {
		images = append(images, i)
	}
	return map[string]any{"name": cfg.Addon.Metadata.Name, "version": cfg.Addon.Spec.Version, "images": images}, nil
}
