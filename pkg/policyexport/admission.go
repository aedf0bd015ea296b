package policyexport

import (
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// rekorURL is the log Kyverno names in a key attestor; with ignoreTlog it
// is never contacted (addonpack's key signatures carry no log entry).
const rekorURL = "https://rekor.sigstore.dev"

func images(p *verify.Policy, target string) ([]verify.ImageRule, error) {
	if len(p.Images) == 0 {
		return nil, fmt.Errorf("--for %s: %w: the policy has no images section (addonpack.dev/v1alpha2 images: who must have signed the images an add-on runs; specs/policy.md)", target, errdef.ErrInvalidArgument)
	}
	return p.Images, nil
}

func imageWhere(r verify.ImageRule) string { return fmt.Sprintf("images %q", r.Glob) }

// kyverno writes a ClusterPolicy (kyverno.io/v1) with one verifyImages rule
// per images entry: its glob as imageReferences ("**" written "*": Kyverno's
// "*" also crosses "/", so a rule may cover more images than the glob,
// never fewer), one attestor set whose count is the threshold (written
// always, 1 by default: Kyverno reads a missing count as "every entry must
// match"), an entry per distinct key and per identity (with its trusted
// root's material: root.go). Kyverno counts the entries that matched, not
// distinct signers: one certificate can match several identity entries, so
// a threshold over 1 with two identities, or a regexp one, is lost.
func kyverno(p *verify.Policy, o Options) (*Result, error) {
	rules, err := images(p, "kyverno")
	if err != nil {
		return nil, err
	}
	var lost []string
	var out []any
	for i, r := range rules {
		where := imageWhere(r)
		var entries []any
		keys, kl := distinctKeys(where, r.Keys)
		lost = append(lost, kl...)
		for _, k := range keys {
			entries = append(entries, map[string]any{"keys": map[string]any{
				"publicKeys": string(k.Verifier.PEM),
				"rekor":      map[string]any{"url": rekorURL, "ignoreTlog": true},
				"ctlog":      map[string]any{"ignoreSCT": true},
			}})
		}
		for _, id := range r.Identities {
			lost = append(lost, identityLost(where, id)...)
			kl, rl, err := kyvernoKeyless(where, id)
			if err != nil {
				return nil, err
			}
			lost = append(lost, rl...)
			entries = append(entries, map[string]any{"keyless": kl})
		}
		if r.Threshold > 1 && (len(r.Identities) > 1 || anyRegexp(r.Identities)) {
			lost = append(lost, fmt.Sprintf("%s: threshold %d (Kyverno counts matching attestor entries: one certificate can match several identities)", where, r.Threshold))
		}
		set := map[string]any{"entries": entries, "count": max(r.Threshold, 1)}
		out = append(out, map[string]any{
			"name":  fmt.Sprintf("verify-images-%d", i+1),
			"match": map[string]any{"any": []any{map[string]any{"resources": map[string]any{"kinds": []any{"Pod"}}}}},
			"verifyImages": []any{map[string]any{
				"imageReferences": []any{strings.ReplaceAll(r.Glob, "**", "*")},
				"failureAction":   "Enforce",
				"attestors":       []any{set},
			}},
		})
	}
	doc, err := deliver.YAMLStream(map[string]any{
		"apiVersion": "kyverno.io/v1", "kind": "ClusterPolicy",
		"metadata": map[string]any{"name": o.Name + "-images", "labels": labels()},
		"spec":     map[string]any{"background": false, "webhookTimeoutSeconds": 30, "rules": out},
	})
	if err != nil {
		return nil, err
	}
	return &Result{Files: []File{{Name: "kyverno.yaml", Data: doc}}, Lost: lost}, nil
}

// anyRegexp reports whether an identity matches by issuer or subject regexp.
func anyRegexp(ids []verify.Identity) bool {
	for _, id := range ids {
		if id.IssuerRegexp != "" || id.SubjectRegexp != "" {
			return true
		}
	}
	return false
}

// policyController writes one ClusterImagePolicy (policy.sigstore.dev/v1beta1)
// per images entry: the glob unchanged (addonpack's glob is
// policy-controller's), an authority per distinct key and a keyless
// authority per trusted root with its identities, the root written as a
// TrustRoot (its Rekor log required when it has one, its TSA checked);
// any authority suffices, so a threshold over 1 is lost.
func policyController(p *verify.Policy, o Options) (*Result, error) {
	rules, err := images(p, "policy-controller")
	if err != nil {
		return nil, err
	}
	var lost []string
	var docs, roots []any
	rootName := map[string]string{} // by digest
	partsOf := map[string]rootParts{}
	for i, r := range rules {
		where := imageWhere(r)
		if r.Threshold > 1 {
			lost = append(lost, fmt.Sprintf("%s: threshold %d (any one authority suffices)", where, r.Threshold))
		}
		var auths []any
		keys, kl := distinctKeys(where, r.Keys)
		lost = append(lost, kl...)
		for _, k := range keys {
			auths = append(auths, map[string]any{"name": "key-" + k.Name, "key": map[string]any{"data": string(k.Verifier.PEM), "hashAlgorithm": "sha256"}})
		}
		byRoot := map[string][]any{}
		var order []*verify.TrustedRoot
		for _, id := range r.Identities {
			lost = append(lost, identityLost(where, id)...)
			if _, ok := byRoot[id.Root.Digest]; !ok {
				order = append(order, id.Root)
			}
			byRoot[id.Root.Digest] = append(byRoot[id.Root.Digest], map[string]any{
				"issuerRegExp": exact(id.Issuer, id.IssuerRegexp), "subjectRegExp": exact(id.Subject, id.SubjectRegexp),
			})
		}
		for _, tr := range order {
			name, ok := rootName[tr.Digest]
			if !ok {
				name = o.Name + "-" + tr.Name
				obj, parts, rl, err := trustRoot(name, tr)
				if err != nil {
					return nil, err
				}
				rootName[tr.Digest], partsOf[tr.Digest] = name, parts
				roots = append(roots, obj)
				lost = append(lost, rl...)
			}
			parts := partsOf[tr.Digest]
			a := map[string]any{"name": "keyless-" + tr.Name, "keyless": map[string]any{"identities": byRoot[tr.Digest], "trustRootRef": name}}
			if len(parts.TLogs) > 0 {
				a["ctlog"] = map[string]any{"url": parts.TLogs[0].URL, "trustRootRef": name}
			}
			if len(parts.TSAs) > 0 {
				a["rfc3161timestamp"] = map[string]any{"trustRootRef": name}
			}
			auths = append(auths, a)
		}
		docs = append(docs, map[string]any{
			"apiVersion": "policy.sigstore.dev/v1beta1", "kind": "ClusterImagePolicy",
			"metadata": map[string]any{"name": fmt.Sprintf("%s-images-%d", o.Name, i+1), "labels": labels()},
			"spec": map[string]any{
				"mode":        "enforce",
				"images":      []any{map[string]any{"glob": r.Glob}},
				"authorities": auths,
			},
		})
	}
	doc, err := deliver.YAMLStream(append(roots, docs...)...)
	if err != nil {
		return nil, err
	}
	return &Result{Files: []File{{Name: "policy-controller.yaml", Data: doc}}, Lost: lost}, nil
}
