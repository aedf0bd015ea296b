package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/specs"
)

// Policy file identifiers (specs/policy.md). PolicyAPIVersionV2 adds
// attestation rules and images; PolicyAPIVersion is read as before.
const (
	PolicyAPIVersion   = "addonpack.dev/v1alpha1"
	PolicyAPIVersionV2 = "addonpack.dev/v1alpha2"
	PolicyKind         = "VerificationPolicy"
	policySchemaPath   = "schemas/policy.schema.json"
	maxPolicySize      = 1 << 20
)

// policyFile is the YAML document.
type policyFile struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Keys       []struct {
		Name      string     `json:"name"`
		PublicKey string     `json:"publicKey"`
		Path      string     `json:"path"`
		Ref       string     `json:"ref"`
		NotBefore *time.Time `json:"notBefore"`
		NotAfter  *time.Time `json:"notAfter"`
	} `json:"keys"`
	TrustedRoots []struct {
		Name    string   `json:"name"`
		Path    string   `json:"path"`
		Digest  string   `json:"digest"`
		Require []string `json:"require"`
	} `json:"trustedRoots"`
	Identities []struct {
		Name          string            `json:"name"`
		TrustedRoot   string            `json:"trustedRoot"`
		Issuer        string            `json:"issuer"`
		IssuerRegexp  string            `json:"issuerRegexp"`
		Subject       string            `json:"subject"`
		SubjectRegexp string            `json:"subjectRegexp"`
		Extensions    map[string]string `json:"extensions"`
	} `json:"identities"`
	Scopes []struct {
		Prefix     string   `json:"prefix"`
		Keys       []string `json:"keys"`
		Identities []string `json:"identities"`
		Threshold  int      `json:"threshold"`
		Provenance struct {
			Required           bool     `json:"required"`
			BuilderIDs         []string `json:"builderIds"`
			SourceRepositories []string `json:"sourceRepositories"`
			PredicateTypes     []string `json:"predicateTypes"`
		} `json:"provenance"`
		Attestations []struct {
			Name          string `json:"name"`
			PredicateType string `json:"predicateType"`
			Condition     string `json:"condition"`
		} `json:"attestations"`
		Summary *SummaryRule `json:"requireVerificationSummary"`
	} `json:"scopes"`
	Names []struct {
		Repository string `json:"repository"`
		Name       string `json:"name"`
	} `json:"names"`
	Images []imageFile `json:"images"`
	Limits struct {
		MaxSignatures int   `json:"maxSignatures"`
		MaxBlobSize   int64 `json:"maxBlobSize"`
	} `json:"limits"`
}

// LoadPolicy reads a policy file (YAML or JSON, specs/policy.md), validates
// it against specs/schemas/policy.schema.json and loads its keys. Key paths
// are relative to the file's directory; getenv reads "env://" keys (nil
// means os.Getenv).
func LoadPolicy(ctx context.Context, path string, getenv func(string) string) (*Policy, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	if len(raw) > maxPolicySize {
		return nil, fmt.Errorf("policy %s: %w: larger than %d bytes", path, ErrPolicy, maxPolicySize)
	}
	return ParsePolicy(ctx, raw, path, getenv)
}

// ParsePolicy is LoadPolicy on bytes; name is the file path (for messages
// and relative key paths).
func ParsePolicy(ctx context.Context, raw []byte, name string, getenv func(string) string) (*Policy, error) {
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w: %w", name, ErrPolicy, err)
	}
	if err := validateSchema(js); err != nil {
		return nil, fmt.Errorf("policy %s: %w: %w", name, ErrPolicy, err)
	}
	var f policyFile
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("policy %s: %w: %w", name, ErrPolicy, err)
	}
	named := map[string]Key{}
	for _, k := range f.Keys {
		if _, dup := named[k.Name]; dup {
			return nil, fmt.Errorf("policy %s: %w: key %q defined twice", name, ErrPolicy, k.Name)
		}
		var v *keys.Verifier
		switch {
		case k.PublicKey != "":
			v, err = keys.ParseVerifier(k.Name, []byte(k.PublicKey))
		case k.Path != "":
			p := k.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(name), p)
			}
			v, err = keys.LoadVerifier(ctx, p, getenv)
		default:
			v, err = keys.LoadVerifier(ctx, k.Ref, getenv)
		}
		if err != nil {
			return nil, fmt.Errorf("policy %s: key %q: %w", name, k.Name, err)
		}
		named[k.Name] = Key{Name: k.Name, Verifier: v, NotBefore: k.NotBefore, NotAfter: k.NotAfter}
	}
	identities, err := f.identities(name)
	if err != nil {
		return nil, err
	}
	p := &Policy{Limits: Limits{MaxSignatures: f.Limits.MaxSignatures, MaxBlobSize: f.Limits.MaxBlobSize}}
	if p.Images, err = f.images(name, named, identities); err != nil {
		return nil, err
	}
	for _, s := range f.Scopes {
		prefix, err := canonicalPrefix(s.Prefix)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w: scope %q: %w", name, ErrPolicy, s.Prefix, err)
		}
		sc := Scope{Prefix: prefix, Threshold: s.Threshold, Provenance: ProvenanceRules{
			Required: s.Provenance.Required, BuilderIDs: s.Provenance.BuilderIDs,
			SourceRepositories: s.Provenance.SourceRepositories, PredicateTypes: s.Provenance.PredicateTypes,
		}}
		if len(s.Attestations) > 0 && f.APIVersion != PolicyAPIVersionV2 {
			return nil, fmt.Errorf("policy %s: %w: scope %q: attestations need apiVersion %s (this policy is %s)", name, ErrPolicy, s.Prefix, PolicyAPIVersionV2, f.APIVersion)
		}
		if s.Summary != nil && f.APIVersion != PolicyAPIVersionV2 {
			return nil, fmt.Errorf("policy %s: %w: scope %q: requireVerificationSummary needs apiVersion %s (this policy is %s)", name, ErrPolicy, s.Prefix, PolicyAPIVersionV2, f.APIVersion)
		}
		sc.Summary = s.Summary
		for _, a := range s.Attestations {
			sc.Attestations = append(sc.Attestations, AttestationRule{Name: a.Name, PredicateType: a.PredicateType, Condition: a.Condition})
		}
		var missing string
		if sc.Keys, sc.Identities, missing = signersNamed(s.Keys, s.Identities, named, identities); missing != "" {
			return nil, fmt.Errorf("policy %s: %w: scope %q names %s", name, ErrPolicy, s.Prefix, missing)
		}
		p.Scopes = append(p.Scopes, sc)
	}
	for _, n := range f.Names {
		ref, err := registry.ParseReference(n.Repository)
		if err != nil || ref.Tag != "" || ref.Digest != "" {
			return nil, fmt.Errorf("policy %s: %w: names: repository %q is not registry/repository", name, ErrPolicy, n.Repository)
		}
		if p.Names == nil {
			p.Names = map[string]string{}
		}
		if _, dup := p.Names[ref.Repo()]; dup {
			return nil, fmt.Errorf("policy %s: %w: names: repository %q listed twice", name, ErrPolicy, n.Repository)
		}
		p.Names[ref.Repo()] = n.Name
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("policy %s: %w", name, err)
	}
	return p, nil
}

func validateSchema(js []byte) error {
	sch, err := schema.CompileEmbedded(specs.Schemas, policySchemaPath)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// canonicalPrefix writes a scope prefix ("registry[/repository…]") with its
// registry host canonical (registry.CanonicalHost), as references are
// parsed: "LOCALHOST:05000/addons" is the scope of "localhost:5000/addons/x".
func canonicalPrefix(prefix string) (string, error) {
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix == "" {
		return "", nil
	}
	host, repo, hasRepo := strings.Cut(prefix, "/")
	host, err := registry.CanonicalHost(host)
	if err != nil {
		return "", err
	}
	if hasRepo {
		return host + "/" + repo, nil
	}
	return host, nil
}

// identities loads the policy's trusted roots (each checked against its
// pinned digest) and returns its identities by name.
func (f *policyFile) identities(name string) (map[string]Identity, error) {
	roots := map[string]*TrustedRoot{}
	for _, r := range f.TrustedRoots {
		if _, dup := roots[r.Name]; dup {
			return nil, fmt.Errorf("policy %s: %w: trusted root %q defined twice", name, ErrPolicy, r.Name)
		}
		path := r.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(name), path)
		}
		tr, err := LoadTrustedRoot(r.Name, path, r.Digest)
		if err != nil {
			if !errors.Is(err, ErrPolicy) {
				err = fmt.Errorf("%w: %w", ErrPolicy, err)
			}
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		if len(r.Require) > 0 {
			if tr, err = tr.Require(r.Require); err != nil {
				return nil, fmt.Errorf("policy %s: %w", name, err)
			}
		}
		roots[r.Name] = tr
	}
	out := map[string]Identity{}
	for _, i := range f.Identities {
		if _, dup := out[i.Name]; dup {
			return nil, fmt.Errorf("policy %s: %w: identity %q defined twice", name, ErrPolicy, i.Name)
		}
		rn := i.TrustedRoot
		if rn == "" && len(f.TrustedRoots) == 1 {
			rn = f.TrustedRoots[0].Name
		}
		tr, ok := roots[rn]
		if !ok {
			return nil, fmt.Errorf("policy %s: %w: identity %q: no trusted root %q (name one of trustedRoots)", name, ErrPolicy, i.Name, rn)
		}
		ext, err := parseExtensions(i.Extensions)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w: identity %q: extensions: %w", name, ErrPolicy, i.Name, err)
		}
		id := Identity{Name: i.Name, Root: tr, Issuer: i.Issuer, IssuerRegexp: i.IssuerRegexp,
			Subject: i.Subject, SubjectRegexp: i.SubjectRegexp, Extensions: ext}
		if err := id.compile(); err != nil {
			return nil, fmt.Errorf("policy %s: %w", name, err)
		}
		out[i.Name] = id
	}
	return out, nil
}

// signersNamed looks up the keys and identities a scope or an images rule
// names among the policy's; missing names the first one undefined
// (`undefined key "x"`), "" when all are.
func signersNamed(keyNames, idNames []string, keys map[string]Key, identities map[string]Identity) (ks []Key, ids []Identity, missing string) {
	for _, kn := range keyNames {
		k, ok := keys[kn]
		if !ok {
			return nil, nil, fmt.Sprintf("undefined key %q", kn)
		}
		ks = append(ks, k)
	}
	for _, in := range idNames {
		id, ok := identities[in]
		if !ok {
			return nil, nil, fmt.Sprintf("undefined identity %q", in)
		}
		ids = append(ids, id)
	}
	return ks, ids, ""
}
