package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
)

// Default limits.
const (
	DefaultMaxSignatures = 32
	DefaultMaxBlobSize   = 4 << 20
)

// ProvenancePredicateType is SLSA Provenance v1.
const ProvenancePredicateType = "https://slsa.dev/provenance/v1"

// Policy says which keys and provenance an artifact needs. It is immutable
// once built (LoadPolicy, PolicyFromKeys) and safe for concurrent use.
type Policy struct {
	// Scopes apply to registry/repository prefixes; the longest matching
	// prefix wins ("" matches every reference).
	Scopes []Scope
	Limits Limits
	// Names maps a repository ("registry/repository", canonical) to the
	// add-on it holds when its last path element is not the add-on's name
	// (a mirror that renames; specs/policy.md). It binds references to
	// signed add-ons (Claim) and does not change what signatures verify.
	Names map[string]string
	// Images say who must have signed the container images an add-on runs
	// (images.go); Verify does not read them.
	Images []ImageRule
}

// Scope is the policy for the references under Prefix.
type Scope struct {
	// Prefix is "registry[/repository...]"; "" matches everything. It
	// matches whole path segments: "r.io/a" matches "r.io/a/b", not "r.io/ab".
	Prefix string
	Keys   []Key
	// Identities are keyless signers (Fulcio certificates under a pinned
	// trusted root); they count toward Threshold like keys.
	Identities []Identity
	// Threshold is how many distinct signers (keys by id, certificates by
	// issuer and subject) must have signed; 0 means 1.
	Threshold  int
	Provenance ProvenanceRules
	// Attestations are rules over the attestations that verified under
	// the scope's signers (specs/policy.md, Attestation rules).
	Attestations []AttestationRule
	// Summary, when set, requires a verification summary (SLSA VSA) by the
	// scope's signers (specs/policy.md, Verification summaries).
	Summary *SummaryRule
}

// Key is a trusted public key with an optional validity window.
type Key struct {
	Name      string
	Verifier  *keys.Verifier
	NotBefore *time.Time
	NotAfter  *time.Time
}

// ProvenanceRules constrain attestations.
type ProvenanceRules struct {
	// Required demands a valid SLSA v1 provenance attestation.
	Required bool
	// BuilderIDs, when set, lists the accepted runDetails.builder.id values
	// as patterns (MatchPattern); setting it implies Required.
	BuilderIDs []string
	// SourceRepositories, when set, lists accepted source repositories as
	// patterns (MatchPattern) over resolvedDependencies URIs ("git+" and
	// ".git" ignored); implies Required.
	SourceRepositories []string
	// PredicateTypes lists further attestation types that must be present
	// and valid (an SBOM, a test report).
	PredicateTypes []string
}

// needsProvenance reports whether a SLSA provenance attestation is needed.
func (r ProvenanceRules) needsProvenance() bool {
	return r.Required || len(r.BuilderIDs) > 0 || len(r.SourceRepositories) > 0
}

// Limits bound what a hostile registry can make Verify do.
type Limits struct {
	// MaxSignatures caps the candidates (signatures plus attestations, in
	// both schemes) examined; more is a failure. 0 means DefaultMaxSignatures.
	MaxSignatures int
	// MaxBlobSize caps each signature, attestation or bundle blob fetched.
	// 0 means DefaultMaxBlobSize.
	MaxBlobSize int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxSignatures <= 0 {
		l.MaxSignatures = DefaultMaxSignatures
	}
	if l.MaxBlobSize <= 0 {
		l.MaxBlobSize = DefaultMaxBlobSize
	}
	return l
}

// KeyOptions build a single-scope policy from --key flags.
type KeyOptions struct {
	Threshold  int
	Provenance ProvenanceRules
	Limits     Limits
	// Getenv reads "env://" key references; nil means os.Getenv.
	Getenv func(string) string
	// Identities are keyless signers trusted beside the keys (the
	// --certificate-identity… flags); each names its trusted root.
	Identities []Identity
}

// PolicyFromKeys returns a policy trusting the public keys named by refs
// (files, "env://VAR", KMS URIs) for every reference.
func PolicyFromKeys(ctx context.Context, refs []string, opts KeyOptions) (*Policy, error) {
	if len(refs) == 0 && len(opts.Identities) == 0 {
		return nil, fmt.Errorf("%w: no keys or identities", ErrPolicy)
	}
	s := Scope{Threshold: opts.Threshold, Provenance: opts.Provenance, Identities: opts.Identities}
	for _, r := range refs {
		v, err := keys.LoadVerifier(ctx, r, opts.Getenv)
		if err != nil {
			return nil, err
		}
		s.Keys = append(s.Keys, Key{Name: r, Verifier: v})
	}
	p := &Policy{Scopes: []Scope{s}, Limits: opts.Limits}
	return p, p.validate()
}

// WithProvenance returns a copy of p whose scopes also require r (the
// command line's --require-provenance, --builder-id, --source-repo).
func (p *Policy) WithProvenance(r ProvenanceRules) *Policy {
	q := &Policy{Limits: p.Limits, Names: p.Names, Images: p.Images, Scopes: make([]Scope, len(p.Scopes))}
	for i, s := range p.Scopes {
		s.Provenance.Required = s.Provenance.Required || r.Required
		if len(r.BuilderIDs) > 0 {
			s.Provenance.BuilderIDs = r.BuilderIDs
		}
		if len(r.SourceRepositories) > 0 {
			s.Provenance.SourceRepositories = r.SourceRepositories
		}
		s.Provenance.PredicateTypes = append(append([]string(nil), s.Provenance.PredicateTypes...), r.PredicateTypes...)
		q.Scopes[i] = s
	}
	return q
}

// WithLimits returns a copy of p with non-zero fields of l applied.
func (p *Policy) WithLimits(l Limits) *Policy {
	q := *p
	if l.MaxSignatures > 0 {
		q.Limits.MaxSignatures = l.MaxSignatures
	}
	if l.MaxBlobSize > 0 {
		q.Limits.MaxBlobSize = l.MaxBlobSize
	}
	return &q
}

func (p *Policy) validate() error {
	if len(p.Scopes) == 0 {
		return fmt.Errorf("%w: no scopes", ErrPolicy)
	}
	seen := map[string]bool{}
	for i := range p.Scopes {
		s := &p.Scopes[i]
		if seen[s.Prefix] {
			return fmt.Errorf("%w: scope %q listed twice", ErrPolicy, s.Prefix)
		}
		seen[s.Prefix] = true
		if err := signersValid(fmt.Sprintf("scope %q", s.Prefix), s.Keys, s.Identities, s.Threshold); err != nil {
			return err
		}
		rules := map[string]bool{}
		for i := range s.Attestations {
			r := &s.Attestations[i]
			if rules[r.Name] {
				return fmt.Errorf("%w: scope %q: attestation rule %q listed twice", ErrPolicy, s.Prefix, r.Name)
			}
			rules[r.Name] = true
			if err := r.compile(); err != nil {
				return fmt.Errorf("scope %q: %w", s.Prefix, err)
			}
		}
		if err := s.Summary.validate(); err != nil {
			return fmt.Errorf("%w: scope %q: %w", ErrPolicy, s.Prefix, err)
		}
		for _, k := range s.Keys {
			if k.Verifier == nil {
				return fmt.Errorf("%w: scope %q: key %q not loaded", ErrPolicy, s.Prefix, k.Name)
			}
			if k.NotBefore != nil && k.NotAfter != nil && !k.NotAfter.After(*k.NotBefore) {
				return fmt.Errorf("%w: key %q: notAfter is not after notBefore", ErrPolicy, k.Name)
			}
		}
	}
	return p.validateImages()
}

func distinctKeys(ks []Key) map[string]bool {
	m := map[string]bool{}
	for _, k := range ks {
		if k.Verifier != nil {
			m[k.Verifier.ID] = true
		}
	}
	return m
}

// ScopeFor returns the scope for ref: the longest prefix that matches.
func (p *Policy) ScopeFor(ref registry.Reference) (*Scope, bool) {
	repo := ref.Repo()
	var best *Scope
	for i := range p.Scopes {
		s := &p.Scopes[i]
		pre := strings.TrimSuffix(s.Prefix, "/")
		if pre != "" && repo != pre && !strings.HasPrefix(repo, pre+"/") {
			continue
		}
		if best == nil || len(pre) > len(strings.TrimSuffix(best.Prefix, "/")) {
			best = s
		}
	}
	return best, best != nil
}

// Digest is a stable identifier of what the policy accepts ("sha256:<hex>"):
// keys by id (not by file name), windows, thresholds, provenance rules,
// scopes and limits. Two policies with the same Digest verify the same way,
// so a cache may key verified digests by (artifact digest, Policy.Digest()).
func (p *Policy) Digest() string {
	type key struct {
		ID        string     `json:"id"`
		NotBefore *time.Time `json:"notBefore,omitempty"`
		NotAfter  *time.Time `json:"notAfter,omitempty"`
	}
	type identity struct {
		Root          string                 `json:"root"`
		RootRequires  []string               `json:"rootRequires,omitempty"` // absent when none: older digests stay
		Issuer        string                 `json:"issuer,omitempty"`
		IssuerRegexp  string                 `json:"issuerRegexp,omitempty"`
		Subject       string                 `json:"subject,omitempty"`
		SubjectRegexp string                 `json:"subjectRegexp,omitempty"`
		Extensions    certificate.Extensions `json:"extensions"`
	}
	type rule struct {
		Name          string `json:"name"`
		PredicateType string `json:"predicateType"`
		Condition     string `json:"condition,omitempty"`
	}
	type scope struct {
		Prefix       string          `json:"prefix"`
		Keys         []key           `json:"keys"`
		Identities   []identity      `json:"identities,omitempty"`
		Threshold    int             `json:"threshold"`
		Provenance   ProvenanceRules `json:"provenance"`
		Attestations []rule          `json:"attestations,omitempty"`        // absent when none: older digests stay
		Summary      *summaryCanon   `json:"verificationSummary,omitempty"` // likewise
	}
	var canon struct {
		Scopes []scope      `json:"scopes"`
		Limits Limits       `json:"limits"`
		Images []imageCanon `json:"images,omitempty"` // absent when none: older digests stay
	}
	canon.Limits, canon.Images = p.Limits.withDefaults(), p.canonImages()
	for _, s := range p.Scopes {
		cs := scope{Prefix: strings.TrimSuffix(s.Prefix, "/"), Threshold: max(s.Threshold, 1), Provenance: ProvenanceRules{
			Required:           s.Provenance.needsProvenance(),
			BuilderIDs:         sorted(s.Provenance.BuilderIDs),
			SourceRepositories: sorted(s.Provenance.SourceRepositories),
			PredicateTypes:     sorted(s.Provenance.PredicateTypes),
		}}
		for _, k := range s.Keys {
			ck := key{ID: k.Verifier.ID, NotBefore: utc(k.NotBefore), NotAfter: utc(k.NotAfter)}
			cs.Keys = append(cs.Keys, ck)
		}
		sort.Slice(cs.Keys, func(i, j int) bool { return cs.Keys[i].ID < cs.Keys[j].ID })
		for _, id := range s.Identities {
			ci := identity{Issuer: id.Issuer, IssuerRegexp: id.IssuerRegexp, Subject: id.Subject,
				SubjectRegexp: id.SubjectRegexp, Extensions: id.Extensions}
			if id.Root != nil {
				ci.Root, ci.RootRequires = id.Root.Digest, id.Root.Demanded()
			}
			cs.Identities = append(cs.Identities, ci)
		}
		cs.Summary = s.Summary.canonical()
		for _, r := range s.Attestations {
			cs.Attestations = append(cs.Attestations, rule{Name: r.Name, PredicateType: r.PredicateType, Condition: r.Condition})
		}
		sort.Slice(cs.Attestations, func(i, j int) bool { return cs.Attestations[i].Name < cs.Attestations[j].Name })
		sort.Slice(cs.Identities, func(i, j int) bool {
			a, _ := json.Marshal(cs.Identities[i])
			b, _ := json.Marshal(cs.Identities[j])
			return string(a) < string(b)
		})
		canon.Scopes = append(canon.Scopes, cs)
	}
	sort.Slice(canon.Scopes, func(i, j int) bool { return canon.Scopes[i].Prefix < canon.Scopes[j].Prefix })
	b, _ := json.Marshal(canon)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

// signersValid checks the signers a scope or an images rule (where) names:
// at least one, a threshold they can meet, identities that compile.
func signersValid(where string, keys []Key, identities []Identity, threshold int) error {
	if len(keys) == 0 && len(identities) == 0 {
		return fmt.Errorf("%w: %s has no keys or identities", ErrPolicy, where)
	}
	if n := len(distinctKeys(keys)) + len(identities); threshold > n {
		return fmt.Errorf("%w: %s: threshold %d exceeds its %d distinct signers (keys and identities)", ErrPolicy, where, threshold, n)
	}
	for i := range identities {
		if err := identities[i].compile(); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}
