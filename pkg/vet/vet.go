package vet

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
)

// DefaultVerifierID is the verifier.id vet writes unless told otherwise.
const DefaultVerifierID = "https://addonpack.dev/vet"

// SLSAVersion is the SLSA specification the summary follows.
const SLSAVersion = "1.0"

// ErrOptions is matched by options that cannot work: no policy URI, a
// build level that is not 0–3 or that the upstream policy cannot back.
var ErrOptions = errdef.New(errdef.ErrInvalidArgument, "invalid vet options")

// Options say what to verify under and what to sign with.
type Options struct {
	// Upstream holds the registry client and the upstream policy the
	// add-on must pass (Policy required; no InsecureSkipVerify, no
	// Offline: the signatures are examined afresh).
	Upstream consume.Options
	// Signer is the organisation's key; nil with Sign.Keyless.
	Signer *keys.Signer
	// Sign chooses the format (bundle, classic, both) and keyless signing,
	// as for sign.Sign; the summary is stored in the same format.
	Sign sign.Options
	// VerifierID is the summary's verifier.id; "" means DefaultVerifierID.
	VerifierID string
	// Version is addonpack's version, recorded as verifier.version.
	Version string
	// PolicyURI names the upstream policy in the summary (policy.uri):
	// required (the CLI passes --policy-uri or the file's base name).
	PolicyURI string
	// BuildLevel, when 2 or 3, states SLSA_BUILD_LEVEL_n instead of the
	// level derived from what verified (1 with a verified provenance, else
	// 0): the organisation vouches for the builders its upstream scope
	// pins (builderIds), so it is refused without them or without a
	// verified provenance.
	BuildLevel int
	// Now is the clock (timeVerified); nil means time.Now.
	Now func() time.Time
}

// Result is what vet verified and wrote.
type Result struct {
	// Reference is the reference vetted, pinned by digest.
	Reference string        `json:"reference"`
	Digest    digest.Digest `json:"digest"`
	// Verification is the upstream verdict (also on failure).
	Verification *verify.Result `json:"verification"`
	// Signature and Summary are what was stored (none on failure).
	Signature *sign.Result `json:"signature,omitempty"`
	Summary   *sign.Result `json:"summary,omitempty"`
	// Predicate is the verification summary attested.
	Predicate *verify.VerificationSummary `json:"predicate,omitempty"`
}

// Vet verifies ref under o.Upstream.Policy afresh and, only when it passes,
// signs its digest with the organisation's key and attests a verification
// summary, both beside what is there. On a failed verification nothing is
// written and the error matches verify.ErrVerification; the Result then
// carries the verdict.
func Vet(ctx context.Context, ref registry.Reference, o Options) (*Result, error) {
	if err := o.check(ref); err != nil {
		return nil, err
	}
	vres, err := consume.Verify(ctx, ref, o.Upstream)
	if vres == nil {
		return nil, err
	}
	res := &Result{Reference: vres.Reference, Digest: vres.Digest, Verification: vres}
	if err != nil {
		return res, err
	}
	if !vres.Verified { // consume.Verify reports every failure; this is a guard
		return res, fmt.Errorf("vet %s: %w", vres.Reference, verify.ErrVerification)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	pred, err := o.summary(vres, now().UTC().Truncate(time.Second))
	if err != nil {
		return res, err
	}
	pinned := ref.WithDigest(vres.Digest)
	desc, err := o.Upstream.Client.Resolve(ctx, pinned) // by digest: the one verified
	if err != nil {
		return res, err
	}
	if desc.Digest != vres.Digest {
		return res, fmt.Errorf("vet %s: %w: resolved to %s", pinned, errdef.ErrDigestMismatch, desc.Digest)
	}
	body, err := json.Marshal(pred)
	if err != nil {
		return res, err
	}
	stmt, err := sign.Statement(ref.Repo(), vres.Digest, verify.VerificationSummaryPredicateType, body)
	if err != nil {
		return res, err
	}
	// The summary first, then the signature: a failure between the two
	// leaves a summary without the organisation's signature, which meets no
	// scope's threshold, rather than a signature a policy that trusts the
	// organisation's key alone would accept without its summary.
	t := sign.Target{Client: o.Upstream.Client, Ref: ref}
	if res.Summary, err = sign.Attest(ctx, t, desc, o.Signer, stmt, o.Sign); err != nil {
		return res, err
	}
	if res.Signature, err = sign.Sign(ctx, t, desc, o.Signer, o.Sign); err != nil {
		return res, err
	}
	res.Predicate = pred
	return res, nil
}

// check refuses options before anything is requested.
func (o Options) check(ref registry.Reference) error {
	switch {
	case o.Upstream.Policy == nil:
		return fmt.Errorf("%w: vet %s: an upstream policy is required", ErrOptions, ref)
	case o.Upstream.InsecureSkipVerify || o.Upstream.Offline:
		return fmt.Errorf("%w: vet %s: the upstream signatures must be verified afresh (no InsecureSkipVerify, no Offline)", ErrOptions, ref)
	case o.Upstream.Client == nil:
		return fmt.Errorf("%w: vet %s: no registry client", ErrOptions, ref)
	case o.PolicyURI == "":
		return fmt.Errorf("%w: vet %s: no policy URI for the summary", ErrOptions, ref)
	case o.Signer == nil && o.Sign.Keyless == nil:
		return fmt.Errorf("%w: vet %s: no organisation key (or keyless signing)", ErrOptions, ref)
	case o.BuildLevel != 0 && o.BuildLevel != 2 && o.BuildLevel != 3:
		return fmt.Errorf("%w: vet %s: build level %d: want 2 or 3 (levels 0 and 1 are derived from what verified)", ErrOptions, ref, o.BuildLevel)
	}
	if o.BuildLevel >= 2 {
		s, ok := o.Upstream.Policy.ScopeFor(ref)
		if !ok || len(s.Provenance.BuilderIDs) == 0 {
			return fmt.Errorf("%w: vet %s: build level %d is vouched for the builders the upstream policy pins, and its scope pins no builderIds", ErrOptions, ref, o.BuildLevel)
		}
	}
	return nil
}

// summary is the VSA predicate for a verification that passed at t.
func (o Options) summary(vres *verify.Result, t time.Time) (*verify.VerificationSummary, error) {
	provenance := false
	var inputs []verify.ResourceDescriptor
	for _, list := range [][]verify.Candidate{vres.Signatures, vres.Attestations} {
		for _, c := range list {
			if c.Verdict != verify.Valid || c.Blob == "" {
				continue
			}
			provenance = provenance || c.PredicateType == verify.ProvenancePredicateType
			inputs = append(inputs, verify.ResourceDescriptor{Name: c.Location,
				Digest: map[string]string{c.Blob.Algorithm().String(): c.Blob.Encoded()}})
		}
	}
	level := 0
	switch {
	case o.BuildLevel >= 2 && !provenance:
		return nil, fmt.Errorf("%w: vet %s: build level %d needs a verified SLSA provenance, and none verified", ErrOptions, vres.Reference, o.BuildLevel)
	case o.BuildLevel >= 2:
		level = o.BuildLevel
	case provenance:
		level = 1
	}
	id := o.VerifierID
	if id == "" {
		id = DefaultVerifierID
	}
	s := &verify.VerificationSummary{
		Verifier:           verify.SummaryVerifier{ID: id},
		TimeVerified:       t,
		ResourceURI:        vres.Reference,
		Policy:             verify.ResourceDescriptor{URI: o.PolicyURI, Digest: map[string]string{"sha256": strings.TrimPrefix(vres.Policy, "sha256:")}},
		InputAttestations:  inputs,
		VerificationResult: verify.VerificationPassed,
		VerifiedLevels:     []string{"SLSA_BUILD_LEVEL_" + strconv.Itoa(level)},
		SLSAVersion:        SLSAVersion,
	}
	if o.Version != "" {
		s.Verifier.Version = map[string]string{"addonpack": o.Version}
	}
	return s, nil
}
