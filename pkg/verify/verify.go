package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/registry"
)

// Target is the repository an artifact lives in and the client that reaches
// it; Ref's tag and digest are not used.
type Target struct {
	Client Reader
	Ref    registry.Reference
}

// Reader is what Verify reads signatures and attestations through: a
// *registry.Client, or a fixed view of what a copy is about to write (so
// that what is verified is exactly what is copied).
type Reader interface {
	// ResolveManifest resolves a tag (cosign's sha256-<hex>.sig/.att) and
	// returns the manifest bytes; registry.ErrNotFound when there is none.
	ResolveManifest(ctx context.Context, ref registry.Reference) (ocispec.Descriptor, []byte, error)
	// Referrers lists the manifests whose subject is subject, of
	// artifactType, at most max (truncated when there are more).
	Referrers(ctx context.Context, ref registry.Reference, subject ocispec.Descriptor, artifactType string, max int) ([]ocispec.Descriptor, bool, error)
	FetchManifest(ctx context.Context, ref registry.Reference, d ocispec.Descriptor) ([]byte, error)
	FetchBlobBytes(ctx context.Context, ref registry.Reference, d ocispec.Descriptor, max int64) ([]byte, error)
}

// Option tunes Verify.
type Option func(*options)

type options struct {
	now time.Time
	// sufficient looks at the bundle referrers first and at the classic
	// tags only if those do not pass (bundlesFirst): the caller wants the
	// decision, not every candidate.
	sufficient bool
}

// WithTime evaluates key validity windows at t instead of the current time.
func WithTime(t time.Time) Option { return func(o *options) { o.now = t } }

// Verdicts of a candidate.
const (
	Valid   = "valid"
	Invalid = "invalid"
)

// Candidate is one signature or attestation examined.
type Candidate struct {
	Kind          string `json:"kind"`   // "signature" or "attestation"
	Format        string `json:"format"` // "classic" or "bundle"
	Location      string `json:"location"`
	PredicateType string `json:"predicateType,omitempty"`
	KeyID         string `json:"keyId,omitempty"`
	KeyName       string `json:"keyName,omitempty"`
	// Identity is the certificate's identity of a keyless signature (set
	// once the certificate verified against a trusted root), IdentityName
	// the policy identity it matched.
	Identity     *CertIdentity `json:"identity,omitempty"`
	IdentityName string        `json:"identityName,omitempty"`
	Verdict      string        `json:"verdict"`
	// Blob is the digest of the blob holding the signed payload, DSSE
	// envelope or bundle (set once the candidate verified): what a
	// verification summary lists as its input attestation.
	Blob      digest.Digest `json:"-"`
	Reason    string        `json:"reason,omitempty"`
	err       error
	statement *statement
}

// Result lists every candidate checked and the decision. A verification
// that wants the decision only (MemoOptions.Sufficient, BatchOptions.
// Sufficient) may pass on the bundle referrers without looking up cosign's
// classic tags: its Result lists the candidates it examined.
type Result struct {
	Reference    string        `json:"reference"`
	Digest       digest.Digest `json:"digest"`
	Policy       string        `json:"policy"`
	Scope        string        `json:"scope"`
	Verified     bool          `json:"verified"`
	Threshold    int           `json:"threshold"`
	SignedBy     []string      `json:"signedBy"`
	Signatures   []Candidate   `json:"signatures"`
	Attestations []Candidate   `json:"attestations"`
	// Rules are the outcomes of the scope's attestation rules (none when
	// it has none).
	Rules []RuleResult `json:"rules,omitempty"`
	// Summary is the outcome of the scope's requireVerificationSummary
	// (none when it has none).
	Summary *SummaryResult `json:"verificationSummary,omitempty"`
	Reasons []string       `json:"reasons,omitempty"`
	// Cached is true for a pass answered from the verified-digest memo
	// (CachedResult): no candidate was examined. It is not in the JSON,
	// where verify.Outcome says cached and carries no Result.
	Cached bool `json:"-"`
}

// CachedResult is the Result of a digest of ref that a memo remembers
// passing p (Remembered returned cached): verified, with no candidates.
func CachedResult(ref registry.Reference, d digest.Digest, p *Policy) *Result {
	res := &Result{Reference: ref.WithDigest(d).String(), Digest: d, Policy: p.Digest(), Verified: true, Cached: true,
		SignedBy: []string{}, Signatures: []Candidate{}, Attestations: []Candidate{}}
	if s, ok := p.ScopeFor(ref); ok {
		res.Scope, res.Threshold = s.Prefix, max(s.Threshold, 1)
	}
	return res
}

// Verify checks subject (a manifest of t's repository, resolved once by the
// caller) against p. It returns the Result and, when verification fails, an
// *Error matching ErrVerification and the specific reasons. Registry
// failures are returned unchanged (e.g. registry.ErrUnreachable) with a nil
// Result.
func Verify(ctx context.Context, t Target, subject ocispec.Descriptor, p *Policy, opts ...Option) (*Result, error) {
	o := options{now: time.Now()}
	for _, f := range opts {
		f(&o)
	}
	if p == nil {
		return nil, fmt.Errorf("verify: %w: no client or policy", ErrPolicy)
	}
	return verify(ctx, t, subject, p, p.Digest(), o)
}

// verify is Verify with the policy's digest computed once by the caller.
func verify(ctx context.Context, t Target, subject ocispec.Descriptor, p *Policy, policyDigest string, o options) (*Result, error) {
	if err := subject.Digest.Validate(); err != nil {
		return nil, fmt.Errorf("verify: subject digest %q: %w", subject.Digest, err)
	}
	if t.Client == nil || p == nil {
		return nil, fmt.Errorf("verify: %w: no client or policy", ErrPolicy)
	}
	pinned := t.Ref.WithDigest(subject.Digest).String()
	res := &Result{Reference: pinned, Digest: subject.Digest, Policy: policyDigest, SignedBy: []string{},
		Signatures: []Candidate{}, Attestations: []Candidate{}}
	fail := func(reasons ...error) (*Result, error) {
		for _, r := range reasons {
			res.Reasons = append(res.Reasons, r.Error())
		}
		return res, &Error{Ref: pinned, Digest: subject.Digest, Reasons: reasons}
	}
	scope, ok := p.ScopeFor(t.Ref)
	if !ok {
		return fail(fmt.Errorf("%w to %s", ErrNoPolicy, t.Ref.Repo()))
	}
	res.Scope, res.Threshold = scope.Prefix, max(scope.Threshold, 1)
	limits := p.Limits.withDefaults()

	c := &collector{t: t, subject: subject, limits: limits}
	ck := checker{t: t, subject: subject, scope: scope, now: o.now, maxBlob: limits.MaxBlobSize}
	var cands []candidate
	var err error
	if o.sufficient && monotone(scope) {
		var pass *Result
		if pass, cands, err = bundlesFirst(ctx, c, ck, res, scope); pass != nil {
			return pass, nil
		}
	} else {
		cands, err = c.collect(ctx)
	}
	if errors.Is(err, ErrTooMany) {
		return fail(err)
	}
	if err != nil {
		return nil, err
	}
	if err := ck.checkAll(ctx, cands); err != nil {
		return nil, err // registry failure
	}
	var ruleErrs []error
	if len(scope.Attestations) > 0 {
		var addon map[string]any
		if names(scope.Attestations, "addon") {
			if addon, err = loadAddonFacts(ctx, t, subject); err != nil {
				return nil, err
			}
		}
		res.Rules, ruleErrs = checkRules(scope, cands, addon)
	}
	return conclude(res, scope, cands, subject.Digest, ruleErrs, fail)
}
