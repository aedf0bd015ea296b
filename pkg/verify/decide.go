package verify

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/sign"
)

// conclude decides on checked candidates: the scope's verification summary,
// when it requires one, joins ruleErrs (the attestation rules that did not
// hold), then decide.
func conclude(res *Result, scope *Scope, cands []candidate, subject digest.Digest, ruleErrs []error, fail func(...error) (*Result, error)) (*Result, error) {
	var sumErr error
	if res.Summary, sumErr = checkSummary(scope, cands, subject); sumErr != nil {
		ruleErrs = append(ruleErrs, sumErr)
	}
	return decide(res, scope, cands, ruleErrs, fail)
}

// decide applies the scope's threshold and provenance rules to the checked
// candidates; ruleErrs are the attestation rules that did not hold.
func decide(res *Result, scope *Scope, cands []candidate, ruleErrs []error, fail func(...error) (*Result, error)) (*Result, error) {
	signed := map[string]bool{}
	var sigErrs, attErrs []error
	nSigs := 0
	for _, c := range cands {
		if c.Kind == "signature" {
			nSigs++
			res.Signatures = append(res.Signatures, c.Candidate)
			if c.Verdict == Valid {
				signed[c.signer] = true
			} else {
				sigErrs = append(sigErrs, c.err)
			}
			continue
		}
		if c.Kind == "" {
			c.Kind = "attestation"
		}
		res.Attestations = append(res.Attestations, c.Candidate)
		if c.Verdict != Valid {
			attErrs = append(attErrs, c.err)
		}
	}
	for id := range signed {
		res.SignedBy = append(res.SignedBy, id)
	}
	sort.Strings(res.SignedBy)

	var reasons []error
	switch {
	case nSigs == 0:
		reasons = append(reasons, fmt.Errorf("%w for %s (looked for tag %s and %s referrers)", ErrUnsigned,
			res.Digest, strings.TrimPrefix(res.Digest.String(), "sha256:")[:12]+"….sig", sign.BundleMediaType))
	case len(signed) < res.Threshold:
		reasons = append(reasons, fmt.Errorf("%w: %d of the required %d trusted signers (distinct keys or certificate identities) signed %s", ErrThreshold, len(signed), res.Threshold, res.Digest))
		reasons = append(reasons, sigErrs...)
	}
	reasons = append(reasons, provenanceReasons(scope.Provenance, cands, attErrs)...)
	reasons = append(reasons, ruleErrs...)
	if len(reasons) > 0 {
		return fail(reasons...)
	}
	res.Verified = true
	return res, nil
}

// provenanceReasons returns why the attestations do not satisfy r (none when
// they do).
func provenanceReasons(r ProvenanceRules, cands []candidate, attErrs []error) []error {
	var reasons []error
	if r.needsProvenance() {
		var why []error
		found := false
		for _, c := range cands {
			if c.Verdict != Valid || c.PredicateType != ProvenancePredicateType {
				continue
			}
			err := checkSLSA(r, c)
			if err == nil {
				found = true
				break
			}
			why = append(why, err)
		}
		if !found {
			reasons = append(reasons, fmt.Errorf("%w: no valid SLSA provenance (%s) satisfies the policy", ErrProvenance, ProvenancePredicateType))
			reasons = append(reasons, why...)
			reasons = append(reasons, attErrs...)
		}
	}
	for _, pt := range r.PredicateTypes {
		ok := false
		for _, c := range cands {
			if c.Verdict == Valid && predicateMatches(pt, c.PredicateType) {
				ok = true
			}
		}
		if !ok {
			reasons = append(reasons, fmt.Errorf("%w: no valid attestation of type %s", ErrAttestation, describePredicate(pt)))
			if !r.needsProvenance() {
				reasons = append(reasons, attErrs...)
			}
		}
	}
	return reasons
}

// slsa is the part of a SLSA v1 predicate the policy constrains.
type slsa struct {
	BuildDefinition struct {
		BuildType          string `json:"buildType"`
		ExternalParameters struct {
			Workflow struct {
				Repository string `json:"repository"`
				Ref        string `json:"ref"`
			} `json:"workflow"`
		} `json:"externalParameters"`
		ResolvedDependencies []struct {
			URI    string            `json:"uri"`
			Digest map[string]string `json:"digest"`
		} `json:"resolvedDependencies"`
	} `json:"buildDefinition"`
	RunDetails struct {
		Builder struct {
			ID string `json:"id"`
		} `json:"builder"`
	} `json:"runDetails"`
}

func checkSLSA(r ProvenanceRules, c candidate) error {
	var p slsa
	if c.statement == nil || json.Unmarshal(c.statement.Predicate, &p) != nil {
		return fmt.Errorf("%w: %s: predicate is not SLSA v1 provenance", ErrProvenance, c.Location)
	}
	if err := crossCheckBuilder(c, p); err != nil {
		return err
	}
	if len(r.BuilderIDs) > 0 && !matchAny(r.BuilderIDs, p.RunDetails.Builder.ID, func(s string) string { return s }) {
		return fmt.Errorf("%w: %s (by %s): builder %q is not one of %q", ErrProvenance, c.Location, c.by(), p.RunDetails.Builder.ID, r.BuilderIDs)
	}
	if len(r.SourceRepositories) > 0 {
		var uris []string
		for _, d := range p.BuildDefinition.ResolvedDependencies {
			if d.URI == "" || d.Digest["gitCommit"] == "" {
				continue
			}
			uris = append(uris, d.URI)
			if matchAny(r.SourceRepositories, d.URI, normalizeRepo) {
				return nil
			}
		}
		return fmt.Errorf("%w: %s (by %s): source %q is not one of %q", ErrProvenance, c.Location, c.by(), uris, r.SourceRepositories)
	}
	return nil
}

// normalizeRepo reduces a repository URL to what identifies the repository
// whatever it was cloned over (https, ssh, scp-like "git@host:path", with or
// without "git+", user, default port, trailing "/" or ".git"): the same
// repository matches, another host or path never does.
func normalizeRepo(u string) string { return provenance.RepositoryKey(u) }

// crossCheckBuilder holds a keyless provenance to the certificate that
// signed it (specs/policy.md): when the certificate carries GitHub Actions
// build-signer claims, a builder id naming a GitHub workflow must be that
// workflow (the build signer, or the calling workflow of a reusable one),
// and GitHub's hosted-runner builder must name the certificate's source
// repository and ref. A provenance cannot claim a builder other than the
// one whose identity signed it.
func crossCheckBuilder(c candidate, p slsa) error {
	if c.Identity == nil || c.Identity.Extensions == nil || c.Identity.Extensions.BuildSignerURI == "" {
		return nil
	}
	ext, b := c.Identity.Extensions, p.RunDetails.Builder.ID
	switch {
	case !strings.HasPrefix(b, "https://github.com/"):
		return nil
	case strings.Contains(b, "/.github/workflows/"):
		if b != ext.BuildSignerURI && b != ext.BuildConfigURI {
			return fmt.Errorf("%w: %s: builder %q is not the workflow that signed it (certificate build signer %q)", ErrProvenance, c.Location, b, ext.BuildSignerURI)
		}
	case strings.HasPrefix(b, "https://github.com/actions/runner/"):
		wf := p.BuildDefinition.ExternalParameters.Workflow
		if wf.Repository != ext.SourceRepositoryURI || (wf.Ref != "" && wf.Ref != ext.SourceRepositoryRef) {
			return fmt.Errorf("%w: %s: provenance names workflow %s@%s, the certificate %s@%s", ErrProvenance, c.Location, wf.Repository, wf.Ref, ext.SourceRepositoryURI, ext.SourceRepositoryRef)
		}
	}
	return nil
}
