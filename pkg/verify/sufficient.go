package verify

import (
	"context"
	"errors"
)

// errNotYet is a trial decision's failure: more candidates are to be looked
// for before anything is reported.
var errNotYet = errors.New("not decided on the bundles alone")

// bundlesFirst is how a verification that wants the decision, not the
// listing of every candidate (options.sufficient: a pull's gate, a batch, a
// remembered verify), looks for signatures: the Sigstore bundle referrers
// first — what addonpack and cosign v3 write by default — and cosign's
// classic .sig and .att tags only when the bundles alone do not pass. A
// bundle-signed add-on is then verified without the two tag lookups, a
// classic one with the same requests as the full verification, one round
// trip later. It returns the passing Result, or every
// candidate listed (classic first, as collect orders them; the bundles
// already checked) for the full decision.
//
// Only a scope whose decision cannot turn from pass to fail as more
// candidates are found takes this path (monotone): thresholds, provenance,
// predicate types and verification summaries ask that something valid
// exists; attestation rules are conditions over every attestation, so a
// scope with them examines everything.
func bundlesFirst(ctx context.Context, c *collector, ck checker, res *Result, scope *Scope) (*Result, []candidate, error) {
	bundles, err := c.list(ctx, c.bundles)
	if err != nil {
		return nil, nil, err
	}
	if len(bundles) > 0 {
		if err := ck.checkAll(ctx, bundles); err != nil {
			return nil, nil, err
		}
		// The trial decides on a copy, with lists of its own: a failure is
		// reported only by the full decision.
		trial := *res
		trial.SignedBy, trial.Signatures, trial.Attestations = []string{}, []Candidate{}, []Candidate{}
		notYet := func(...error) (*Result, error) { return nil, errNotYet }
		if pass, err := conclude(&trial, scope, bundles, ck.subject.Digest, nil, notYet); err == nil {
			return pass, nil, nil
		}
	}
	classic, err := c.list(ctx, c.classicSignatures, c.classicAttestations)
	if err != nil {
		return nil, nil, err
	}
	all := append(classic, bundles...)
	return nil, all, c.count(len(all), "")
}

// monotone reports whether scope's decision can only go from fail to pass
// as candidates are added (bundlesFirst).
func monotone(scope *Scope) bool {
	return len(scope.Attestations) == 0
}
