package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/specs"
)

// Identifiers of the mirror file (specs/mirror.md section 1).
const (
	APIVersion = "addonpack.dev/v1alpha1"
	Kind       = "Mirror"
	// MaxFileSize bounds a mirror file.
	MaxFileSize = 256 << 10
)

// ErrFile reports a mirror file that cannot be used; the error names the
// file and the field.
var ErrFile = errdef.New(errdef.ErrInvalid, "invalid mirror file")

// Mirror is a parsed mirror file.
type Mirror struct {
	// Path is the file read; relative paths in it are relative to its
	// directory.
	Path        string
	Policy      PolicyRef
	Sources     []Source
	Destination Destination
}

// PolicyRef is the trust the file names: a policy file, or keys.
type PolicyRef struct {
	File              string   `json:"file,omitempty"`
	Keys              []string `json:"keys,omitempty"`
	RequireProvenance bool     `json:"requireProvenance,omitempty"`
}

// Source is one upstream repository and its version selector.
type Source struct {
	Repository registry.Reference `json:"-"`
	Versions   semver.Range       `json:"-"`
	Limit      int                `json:"limit,omitempty"`
	Name       string             `json:"name,omitempty"`
	Images     bool               `json:"images,omitempty"`
}

// Destination is a registry prefix or a tarball path (one of them).
type Destination struct {
	Registry *registry.Reference // Registry and Repository: the prefix
	Tarball  string
}

// file is the document as written.
type file struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Policy     PolicyRef `json:"policy"`
	Sources    []struct {
		Repository string `json:"repository"`
		Versions   string `json:"versions"`
		Limit      int    `json:"limit"`
		Name       string `json:"name"`
		Images     bool   `json:"images"`
	} `json:"sources"`
	Destination struct {
		Registry string `json:"registry"`
		Tarball  string `json:"tarball"`
	} `json:"destination"`
}

// Load reads and checks the mirror file at path (Parse).
func Load(path string) (*Mirror, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mirror file %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("mirror file %s: %w", path, err)
	}
	return Parse(raw, path)
}

// Parse checks raw, a mirror file named name, against
// specs/schemas/mirror.schema.json and the rules of specs/mirror.md section
// 1: size, unknown fields, one policy form, one destination, ranges,
// references, distinct repositories. Errors wrap ErrFile.
func Parse(raw []byte, name string) (*Mirror, error) {
	// Inner errors are quoted (%v), not wrapped: every refusal of a file
	// is ErrFile's class (exit 3), never a reference's usage class.
	fail := func(format string, args ...any) error {
		return fmt.Errorf("mirror file %s: %w: "+format, append([]any{name, ErrFile}, args...)...)
	}
	if len(raw) > MaxFileSize {
		return nil, fail("larger than %d bytes", MaxFileSize)
	}
	if n, err := spec.CountDocuments(raw); err != nil || n != 1 {
		return nil, fail("must hold exactly one YAML document, found %d (%v)", n, err)
	}
	js, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return nil, fail("%v", err)
	}
	if err := policyForm(js); err != nil {
		return nil, fail("%v", err)
	}
	if err := schema.ValidateEmbedded(specs.Schemas, specs.MirrorSchemaPath, js); err != nil {
		return nil, fail("%v", err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fail("%v", err)
	}
	m := &Mirror{Path: name, Policy: f.Policy}
	seen := map[string]int{}
	for i, s := range f.Sources {
		field := fmt.Sprintf("sources[%d]", i)
		ref, err := consume.ParseReference(s.Repository)
		if err != nil {
			return nil, fail("%s.repository: %v", field, err)
		}
		r, err := semver.ParseRange(s.Versions)
		if err != nil {
			return nil, fail("%s.versions: %v", field, err)
		}
		if err := semver.CheckRepository(ref, r); err != nil {
			return nil, fail("%s.repository: %v", field, err)
		}
		if j, dup := seen[ref.Repo()]; dup {
			return nil, fail("%s.repository: %s is also sources[%d]", field, ref.Repo(), j)
		}
		seen[ref.Repo()] = i
		if s.Images && f.Destination.Tarball != "" {
			return nil, fail("%s.images: not supported with a tarball destination (specs/mirror.md section 5.4)", field)
		}
		m.Sources = append(m.Sources, Source{Repository: ref, Versions: r, Limit: s.Limit, Name: s.Name, Images: s.Images})
	}
	if d := f.Destination.Registry; d != "" {
		ref, err := consume.ParseReference(d)
		if !strings.Contains(d, "/") { // a registry alone: no path prefix
			ref, err = consume.ParseReference(d + "/prefix")
			ref.Repository = ""
		}
		if err != nil {
			return nil, fail("destination.registry: %v", err)
		}
		if ref.Tag != "" || ref.Digest != "" {
			return nil, fail("destination.registry: %s: a registry and path prefix, without a tag or digest", d)
		}
		m.Destination.Registry = &ref
	} else {
		m.Destination.Tarball = m.rel(f.Destination.Tarball)
	}
	return m, nil
}

// policyForm says in words what the schema's oneOf on policy refuses: one
// of file and keys, requireProvenance only beside keys.
func policyForm(js []byte) error {
	var doc struct {
		Policy map[string]json.RawMessage `json:"policy"`
	}
	if json.Unmarshal(js, &doc) != nil || doc.Policy == nil {
		return nil // the schema names what is wrong
	}
	_, file := doc.Policy["file"]
	_, keys := doc.Policy["keys"]
	_, prov := doc.Policy["requireProvenance"]
	switch {
	case file == keys:
		return errors.New("policy: give exactly one of file (a VerificationPolicy) and keys")
	case prov && !keys:
		return errors.New("policy.requireProvenance goes with keys (a policy file says it in its scopes)")
	}
	return nil
}

// rel is p relative to the mirror file's directory, unless absolute.
func (m *Mirror) rel(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(m.Path), p)
}

// LoadPolicy loads the trust the file names: the policy file, or a policy
// trusting its keys for every repository. getenv reads env:// keys.
func (m *Mirror) LoadPolicy(ctx context.Context, getenv func(string) string) (*verify.Policy, error) {
	if m.Policy.File != "" {
		return verify.LoadPolicy(ctx, m.rel(m.Policy.File), getenv)
	}
	refs := make([]string, len(m.Policy.Keys))
	for i, k := range m.Policy.Keys {
		refs[i] = k
		if !strings.Contains(k, "://") {
			refs[i] = m.rel(k)
		}
	}
	return verify.PolicyFromKeys(ctx, refs, verify.KeyOptions{
		Getenv:     getenv,
		Provenance: verify.ProvenanceRules{Required: m.Policy.RequireProvenance},
	})
}

// Target is where a release of src with tag goes under the destination
// prefix: PREFIX/PATH:TAG (specs/mirror.md section 1 item 4).
func (d Destination) Target(src registry.Reference, tag string) registry.Reference {
	p := *d.Registry
	p.Repository = strings.TrimSuffix(p.Repository, "/")
	if p.Repository != "" {
		p.Repository += "/"
	}
	p.Repository += src.Repository
	p.Tag, p.Digest = tag, ""
	return p
}
