package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	orasregistry "oras.land/oras-go/v2/registry"
)

// Target is a repository and the client that reaches it: where an
// artifact is read from, signed or verified (artifact.Remote, sign.Target).
// Ref's tag or digest name the artifact where one is resolved; signing and
// verification take the subject by digest and use only the repository.
type Target struct {
	Client *Client
	Ref    Reference
}

// Reference names a repository in a registry and optionally a tag, a digest,
// or both ("registry/repository:tag@sha256:..."). When both are set, the
// digest pins what the tag must resolve to.
type Reference struct {
	Registry   string // host with optional port, e.g. "ghcr.io" or "localhost:5000"
	Repository string // e.g. "org/addon"
	Tag        string
	Digest     digest.Digest
}

// ParseReference parses "registry/repository[:tag][@digest]". The registry
// part is mandatory (there is no docker.io default) and no tag is implied;
// its host is canonical (CanonicalHost).
// Errors wrap ErrInvalidReference and name the input.
func ParseReference(s string) (Reference, error) {
	base, dgst, hasDigest := strings.Cut(s, "@")
	if strings.HasSuffix(base, ":") {
		return Reference{}, fmt.Errorf("%w %q: empty tag", ErrInvalidReference, s)
	}
	r, err := orasregistry.ParseReference(base)
	if err != nil {
		return Reference{}, fmt.Errorf("%w %q: %w", ErrInvalidReference, s, err)
	}
	// One spelling per registry, so that scopes, cache keys and
	// comparisons see one registry.
	host, err := canonicalHost(r.Registry)
	if err != nil {
		return Reference{}, fmt.Errorf("%w %q: %w", ErrInvalidReference, s, err)
	}
	ref := Reference{Registry: host, Repository: r.Repository, Tag: r.Reference}
	if hasDigest {
		d, err := digest.Parse(dgst)
		if err != nil {
			return Reference{}, fmt.Errorf("%w %q: invalid digest %q: %w", ErrInvalidReference, s, dgst, err)
		}
		ref.Digest = d
	}
	return ref, nil
}

// String returns the canonical form "registry/repository[:tag][@digest]".
func (r Reference) String() string {
	var b strings.Builder
	b.WriteString(r.Repo())
	if r.Tag != "" {
		b.WriteString(":")
		b.WriteString(r.Tag)
	}
	if r.Digest != "" {
		b.WriteString("@")
		b.WriteString(r.Digest.String())
	}
	return b.String()
}

// Repo returns "registry/repository".
func (r Reference) Repo() string {
	return r.Registry + "/" + r.Repository
}

// WithDigest returns "registry/repository@d": the tag is dropped.
func (r Reference) WithDigest(d digest.Digest) Reference {
	return Reference{Registry: r.Registry, Repository: r.Repository, Digest: d}
}

// validateRepo checks the registry and repository parts, for references
// built as struct literals rather than parsed.
func (r Reference) validateRepo() error {
	o := r.orasRef()
	if err := o.ValidateRegistry(); err != nil {
		return fmt.Errorf("%w %q: %w", ErrInvalidReference, r.String(), err)
	}
	if err := o.ValidateRepository(); err != nil {
		return fmt.Errorf("%w %q: %w", ErrInvalidReference, r.String(), err)
	}
	return nil
}

// orasRef returns the oras-go reference of the repository (no tag/digest).
func (r Reference) orasRef() orasregistry.Reference {
	return orasregistry.Reference{Registry: r.Registry, Repository: r.Repository}
}

// resolveTarget returns what Resolve asks the registry for: the tag when one
// is set (the digest, if any, is then checked against the answer), else the
// digest.
func (r Reference) resolveTarget() (string, error) {
	if r.Digest != "" {
		if err := r.Digest.Validate(); err != nil {
			return "", fmt.Errorf("%w %q: %w", ErrInvalidReference, r.String(), err)
		}
	}
	if r.Tag != "" {
		o := r.orasRef()
		o.Reference = r.Tag
		if err := o.ValidateReferenceAsTag(); err != nil {
			return "", fmt.Errorf("%w %q: %w", ErrInvalidReference, r.String(), err)
		}
		return r.Tag, nil
	}
	if r.Digest != "" {
		return r.Digest.String(), nil
	}
	return "", fmt.Errorf("%w %q: no tag or digest", ErrInvalidReference, r.String())
}

// MarshalJSON encodes r as its canonical string, the form every command's
// JSON output uses for a reference (specs/cli-output.md).
func (r Reference) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.String())
}

// UnmarshalJSON parses the string form MarshalJSON writes.
func (r *Reference) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidReference, err)
	}
	ref, err := ParseReference(s)
	if err != nil {
		return err
	}
	*r = ref
	return nil
}
