package policyexport

import (
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
)

// fluxBindingNote opens every Flux export: source-controller checks the
// cosign signature only, not addonpack's reference binding, so an artifact
// the same signers signed for another add-on or version passes under a
// changed --ref. It is not a loss of the policy (nothing the policy says),
// so it does not refuse the export.
const fluxBindingNote = "Flux checks the signature, not that the signed add-on's name and version are those of the reference (specs/artifact.md 11.6); verify with addonpack before you change --ref"

// flux writes the scope that applies to o.Ref (or the policy's only scope)
// as Flux source-controller (v1.9) verifies an OCIRepository: cosign, with
// the scope's public keys in a Secret (any one key's signature suffices),
// or keyless (matchOIDCIdentity: issuer and subject regexps, any one
// matching) under the scope's trusted root (trustedRootSecretRef).
func flux(p *verify.Policy, o Options) (*Result, error) {
	s, err := scopeFor(p, o.Ref)
	if err != nil {
		return nil, err
	}
	ns := o.Namespace
	if ns == "" {
		ns = "flux-system"
	}
	where := scopeName(s)
	lost := scopeLost(where, s)
	v := map[string]any{"provider": "cosign"}
	var docs []any
	switch {
	case len(s.Keys) > 0:
		data := map[string]any{}
		keys, kl := distinctKeys(where, s.Keys)
		lost = append(lost, kl...)
		for _, k := range keys {
			data[k.Name+".pub"] = string(k.Verifier.PEM)
		}
		for _, id := range s.Identities {
			lost = append(lost, fmt.Sprintf("%s: identity %q (Flux verifies with the Secret's keys when secretRef is set and never falls back to keyless)", where, id.Name))
		}
		name := o.Name + "-cosign-keys"
		v["secretRef"] = map[string]any{"name": name}
		docs = append(docs, secret(name, ns, data))
	default:
		var root *verify.TrustedRoot
		var match []any
		for _, id := range s.Identities {
			lost = append(lost, identityLost(where, id)...)
			if root != nil && id.Root.Digest != root.Digest {
				lost = append(lost, fmt.Sprintf("%s: identity %q under trusted root %q (Flux takes one trusted root; this export uses %q)", where, id.Name, id.Root.Name, root.Name))
				continue
			}
			root = id.Root
			match = append(match, map[string]any{"issuer": exact(id.Issuer, id.IssuerRegexp), "subject": exact(id.Subject, id.SubjectRegexp)})
		}
		if root.Requirements().Timestamp {
			// source-controller v1.9 never sets cosign's UseSignedTimestamps;
			// cosign sets it itself only for a bundle without Rekor v1 entries.
			lost = append(lost, fmt.Sprintf("%s: trusted root %q: a signed timestamp is required (Flux requires one only of a bundle whose log entries are all Rekor v2)", where, root.Name))
		}
		if d := root.Demanded(); len(d) > 0 {
			lost = append(lost, fmt.Sprintf("%s: trusted root %q require [%s] (Flux checks what cosign checks by default)", where, root.Name, strings.Join(d, ", ")))
		}
		name := o.Name + "-trusted-root"
		v["matchOIDCIdentity"] = match
		v["trustedRootSecretRef"] = map[string]any{"name": name}
		docs = append(docs, secret(name, ns, map[string]any{"trusted_root.json": string(root.Bytes())}))
	}
	repo := map[string]any{"verify": v}
	if o.Ref != nil {
		repo["interval"] = "10m"
		repo["url"] = "oci://" + o.Ref.Repo()
		repo["layerSelector"] = map[string]any{"mediaType": spec.ContentMediaType, "operation": "extract"}
		if o.PlainHTTP || registry.IsLoopback(o.Ref.Registry) {
			repo["insecure"] = true
		}
		switch {
		case o.Ref.Digest != "":
			repo["ref"] = map[string]any{"digest": o.Ref.Digest.String()}
		case o.Ref.Tag != "":
			repo["ref"] = map[string]any{"tag": o.Ref.Tag}
		}
	}
	docs = append(docs, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
		"metadata": map[string]any{"name": o.Name, "namespace": ns, "labels": labels()},
		"spec":     repo,
	})
	out, err := deliver.YAMLStream(docs...)
	if err != nil {
		return nil, err
	}
	return &Result{Files: []File{{Name: "flux.yaml", Data: out}}, Lost: lost, Notes: []string{fluxBindingNote}}, nil
}

// scopeFor is the scope that applies to ref (the most specific prefix), or
// without one the policy's only scope.
func scopeFor(p *verify.Policy, ref *registry.Reference) (*verify.Scope, error) {
	if ref != nil {
		s, ok := p.ScopeFor(*ref)
		if !ok {
			return nil, fmt.Errorf("--ref %s: %w: no scope of the policy applies to it", ref, errdef.ErrInvalidArgument)
		}
		return s, nil
	}
	if len(p.Scopes) != 1 {
		var names []string
		for i := range p.Scopes {
			names = append(names, scopeName(&p.Scopes[i]))
		}
		return nil, fmt.Errorf("%w: the policy has %d scopes (%s): pass --ref REF to choose the one that applies to it", errdef.ErrInvalidArgument, len(p.Scopes), strings.Join(names, ", "))
	}
	return &p.Scopes[0], nil
}

func scopeName(s *verify.Scope) string {
	if s.Prefix == "" {
		return `scope "" (every reference)`
	}
	return fmt.Sprintf("scope %q", s.Prefix)
}

// scopeLost lists what of a scope no GitOps controller enforces: a
// threshold over 1, provenance and attestation rules, a required
// verification summary.
func scopeLost(where string, s *verify.Scope) []string {
	var lost []string
	if s.Threshold > 1 {
		lost = append(lost, fmt.Sprintf("%s: threshold %d (one signer suffices)", where, s.Threshold))
	}
	pr := s.Provenance
	if pr.Required {
		lost = append(lost, where+": provenance.required")
	}
	for _, b := range pr.BuilderIDs {
		lost = append(lost, fmt.Sprintf("%s: provenance.builderIds %q", where, b))
	}
	for _, r := range pr.SourceRepositories {
		lost = append(lost, fmt.Sprintf("%s: provenance.sourceRepositories %q", where, r))
	}
	for _, t := range pr.PredicateTypes {
		lost = append(lost, fmt.Sprintf("%s: provenance.predicateTypes %q", where, t))
	}
	for _, a := range s.Attestations {
		lost = append(lost, fmt.Sprintf("%s: attestation rule %q (%s)", where, a.Name, a.PredicateType))
	}
	if s.Summary != nil {
		lost = append(lost, fmt.Sprintf("%s: requireVerificationSummary (verifier %q)", where, s.Summary.Verifier))
	}
	return lost
}

func secret(name, ns string, data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": name, "namespace": ns, "labels": labels()},
		"type":       "Opaque",
		"stringData": data,
	}
}
