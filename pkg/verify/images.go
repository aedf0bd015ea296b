package verify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
)

// ImageRule says who must have signed the container images whose
// references match Glob (specs/policy.md, Images; addonpack.dev/v1alpha2).
// addonpack's own Verify does not read it: the images are not in the
// artifact it verifies. It is exported as admission policy (Kyverno,
// Sigstore policy-controller) by pkg/policyexport.
type ImageRule struct {
	// Glob is Sigstore policy-controller's glob: "*" any run of characters
	// but "/", "**" any run at all (ImageGlob).
	Glob       string
	Keys       []Key
	Identities []Identity
	// Threshold is how many distinct signers must have signed; 0 means 1.
	Threshold int
}

// imageGlobChars is the glob alphabet (policy-controller's validGlob).
var imageGlobChars = regexp.MustCompile(`^[a-zA-Z0-9_:/*.@-]+$`)

// ImageGlob compiles an images glob (specs/policy.md, Images) to the
// regular expression it stands for: anchored, "*" as "[^/]*", "**" as ".*",
// every other character literal. A glob must start with a registry host
// written out (no "*" before the first "/"), and its last path segment
// must hold a "*", ":" or "@" (else it matches no tagged or digest
// reference).
func ImageGlob(glob string) (*regexp.Regexp, error) {
	if len(glob) > 1024 || !imageGlobChars.MatchString(glob) {
		return nil, fmt.Errorf("%w: images: glob %q: want only A-Z a-z 0-9 - _ : / * . @ (at most 1024)", ErrPolicy, glob)
	}
	host, rest, ok := strings.Cut(glob, "/")
	if !ok || host == "" || rest == "" || strings.Contains(host, "*") {
		return nil, fmt.Errorf("%w: images: glob %q: want a registry host written out, then /repository (docker.io/library/… for Docker Hub)", ErrPolicy, glob)
	}
	if last := glob[strings.LastIndex(glob, "/")+1:]; !strings.ContainsAny(last, "*:@") {
		return nil, fmt.Errorf("%w: images: glob %q: its last path segment %q has no \"*\", \":\" or \"@\", so it matches only an image written without tag or digest, never one a Pod pins (%q covers its tags and digests)", ErrPolicy, glob, last, glob+"*")
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch {
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case glob[i] == '*':
			b.WriteString("[^/]*")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// MatchImage reports whether the image reference (as written in a Pod)
// matches the rule's glob.
func (r *ImageRule) MatchImage(image string) bool {
	re, err := ImageGlob(r.Glob)
	return err == nil && re.MatchString(image)
}

// imageFile is one entry of a policy file's images.
type imageFile struct {
	Glob       string   `json:"glob"`
	Keys       []string `json:"keys"`
	Identities []string `json:"identities"`
	Threshold  int      `json:"threshold"`
}

// images resolves the policy file's images section against its named keys
// and identities.
func (f *policyFile) images(name string, keys map[string]Key, identities map[string]Identity) ([]ImageRule, error) {
	if len(f.Images) > 0 && f.APIVersion != PolicyAPIVersionV2 {
		return nil, fmt.Errorf("policy %s: %w: images need apiVersion %s (this policy is %s)", name, ErrPolicy, PolicyAPIVersionV2, f.APIVersion)
	}
	var out []ImageRule
	for _, im := range f.Images {
		r := ImageRule{Glob: im.Glob, Threshold: im.Threshold}
		var missing string
		if r.Keys, r.Identities, missing = signersNamed(im.Keys, im.Identities, keys, identities); missing != "" {
			return nil, fmt.Errorf("policy %s: %w: images: glob %q names %s", name, ErrPolicy, im.Glob, missing)
		}
		out = append(out, r)
	}
	return out, nil
}

// validateImages checks the images rules of a policy however it was built.
func (p *Policy) validateImages() error {
	seen := map[string]bool{}
	for i := range p.Images {
		r := &p.Images[i]
		if _, err := ImageGlob(r.Glob); err != nil {
			return err
		}
		if seen[r.Glob] {
			return fmt.Errorf("%w: images: glob %q listed twice", ErrPolicy, r.Glob)
		}
		seen[r.Glob] = true
		if err := signersValid(fmt.Sprintf("images: glob %q", r.Glob), r.Keys, r.Identities, r.Threshold); err != nil {
			return err
		}
		for _, k := range r.Keys {
			if k.Verifier == nil {
				return fmt.Errorf("%w: images: glob %q: key %q not loaded", ErrPolicy, r.Glob, k.Name)
			}
		}
	}
	return nil
}

// imageCanon is an images rule in Policy.Digest's canonical form.
type imageCanon struct {
	Glob       string        `json:"glob"`
	Keys       []imageKey    `json:"keys,omitempty"`
	Identities []imageSigner `json:"identities,omitempty"`
	Threshold  int           `json:"threshold"`
}

type imageKey struct {
	ID        string     `json:"id"`
	NotBefore *time.Time `json:"notBefore,omitempty"`
	NotAfter  *time.Time `json:"notAfter,omitempty"`
}

type imageSigner struct {
	Root          string                 `json:"root"`
	Issuer        string                 `json:"issuer,omitempty"`
	IssuerRegexp  string                 `json:"issuerRegexp,omitempty"`
	Subject       string                 `json:"subject,omitempty"`
	SubjectRegexp string                 `json:"subjectRegexp,omitempty"`
	Extensions    certificate.Extensions `json:"extensions"`
}

// canonImages is p.Images for Policy.Digest: nil when there are none, so
// the digests of policies without images do not change.
func (p *Policy) canonImages() []imageCanon {
	var out []imageCanon
	for _, r := range p.Images {
		c := imageCanon{Glob: r.Glob, Threshold: max(r.Threshold, 1)}
		for _, k := range r.Keys {
			c.Keys = append(c.Keys, imageKey{ID: k.Verifier.ID, NotBefore: utc(k.NotBefore), NotAfter: utc(k.NotAfter)})
		}
		sort.Slice(c.Keys, func(i, j int) bool { return c.Keys[i].ID < c.Keys[j].ID })
		for _, id := range r.Identities {
			s := imageSigner{Issuer: id.Issuer, IssuerRegexp: id.IssuerRegexp, Subject: id.Subject,
				SubjectRegexp: id.SubjectRegexp, Extensions: id.Extensions}
			if id.Root != nil {
				s.Root = id.Root.Digest
			}
			c.Identities = append(c.Identities, s)
		}
		sort.Slice(c.Identities, func(i, j int) bool {
			a, _ := json.Marshal(c.Identities[i])
			b, _ := json.Marshal(c.Identities[j])
			return string(a) < string(b)
		})
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Glob < out[j].Glob })
	return out
}
