package stack

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
)

// Identifiers of the stack and lock files.
const (
	APIVersion = "addonpack.dev/v1alpha1"
	// APIVersionV1Alpha2 is APIVersion plus the upgrade policy of a stack
	// file and the downgrade record of a lock (specs/stack.md section 4.6).
	APIVersionV1Alpha2 = "addonpack.dev/v1alpha2"
	KindStack          = "Stack"
	KindLock           = "StackLock"
	// LockName is the lock file's name beside the stack file.
	LockName = "addons.lock"
)

// Bounds of a stack (specs/stack.md sections 4 and 4.2).
const (
	MaxRoots     = 64
	MaxNodes     = 64
	MaxDepth     = 16
	maxFileBytes = 1 << 20
)

// ErrStack reports an invalid stack or lock file; ErrResolve a graph that
// cannot be resolved (conflict, cycle, bound).
var (
	ErrStack   = errdef.New(errdef.ErrInvalid, "invalid stack")
	ErrResolve = errdef.New(errdef.ErrInvalid, "stack does not resolve")
)

// Stack is a parsed stack file.
type Stack struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Addons     []Entry `json:"addons"`
	Policy     string  `json:"policy,omitempty"`
	// Kubernetes is the target cluster's Kubernetes version: the default
	// of render --kube-version for every add-on of the stack.
	Kubernetes string `json:"kubernetes,omitempty"`
	// Upgrade is the upgrade policy of every entry that names none, and of
	// every dependency (v1alpha2; "" for the default).
	Upgrade string `json:"upgrade,omitempty"`

	// Path is the file the stack was read from; relative paths in it are
	// relative to its directory.
	Path string `json:"-"`
}

// Entry is one root of a stack.
type Entry struct {
	Name       string        `json:"name,omitempty"`
	Repository string        `json:"repository"`
	Version    string        `json:"version,omitempty"`
	Digest     digest.Digest `json:"digest,omitempty"`
	Values     string        `json:"values,omitempty"`
	// Upgrade is this root's upgrade policy (v1alpha2).
	Upgrade string `json:"upgrade,omitempty"`

	repo  registry.Reference
	rng   semver.Range
	fixed bool // pinned by digest
}

// Load reads and checks the stack file at path.
func Load(path string) (*Stack, error) {
	b, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return Parse(b, path)
}

// Parse decodes and checks a stack file's bytes; path names it in errors
// and anchors its relative paths.
func Parse(b []byte, path string) (*Stack, error) {
	var st Stack
	if err := yaml.UnmarshalStrict(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrStack, err)
	}
	st.Path = path
	if err := st.check(); err != nil {
		return nil, err
	}
	return &st, nil
}

// Dir is the directory relative paths of the stack are resolved against.
func (s *Stack) Dir() string { return filepath.Dir(s.Path) }

// check applies the rules of specs/stack.md section 4.
func (s *Stack) check() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%s: %s: %w: %s", s.Path, field, ErrStack, fmt.Sprintf(format, args...))
	}
	if s.APIVersion != APIVersion && s.APIVersion != APIVersionV1Alpha2 || s.Kind != KindStack {
		return bad("apiVersion/kind", "must be %s or %s / %s, not %q / %q", APIVersion, APIVersionV1Alpha2, KindStack, s.APIVersion, s.Kind)
	}
	policy := func(field, p string) error {
		if p != "" && s.APIVersion == APIVersion {
			return bad(field, "an upgrade policy needs apiVersion %s (this file is %s)", APIVersionV1Alpha2, APIVersion)
		}
		if err := checkPolicy(p); err != nil {
			return bad(field, "%v", err)
		}
		return nil
	}
	if err := policy("upgrade", s.Upgrade); err != nil {
		return err
	}
	if len(s.Addons) == 0 || len(s.Addons) > MaxRoots {
		return bad("addons", "must hold 1 to %d entries, not %d", MaxRoots, len(s.Addons))
	}
	if s.Kubernetes != "" {
		if _, err := config.ParseKubeVersion(s.Kubernetes); err != nil {
			return bad("kubernetes", "%v", err)
		}
	}
	seen := map[string]int{}
	for i := range s.Addons {
		e := &s.Addons[i]
		field := fmt.Sprintf("addons[%d]", i)
		ref, err := registry.ParseReference(e.Repository)
		if err != nil || ref.Tag != "" || ref.Digest != "" {
			return bad(field+".repository", "%q is not an OCI repository (registry/path, without tag or digest)", e.Repository)
		}
		e.repo = ref
		if j, dup := seen[ref.Repo()]; dup {
			return bad(field+".repository", "%s is also addons[%d]: one add-on per repository", ref.Repo(), j)
		}
		seen[ref.Repo()] = i
		switch {
		case (e.Version == "") == (e.Digest == ""):
			return bad(field, "give exactly one of version and digest")
		case e.Digest != "":
			if err := e.Digest.Validate(); err != nil || e.Digest.Algorithm() != digest.SHA256 {
				return bad(field+".digest", "%q is not a sha256 digest", e.Digest)
			}
			e.fixed = true
		default:
			if e.rng, err = semver.ParseRange(e.Version); err != nil {
				return bad(field+".version", "%v", err)
			}
		}
		if err := policy(field+".upgrade", e.Upgrade); err != nil {
			return err
		}
		if e.Values != "" && filepath.IsAbs(e.Values) {
			return bad(field+".values", "%q must be relative to the stack file", e.Values)
		}
	}
	return nil
}

// readBounded reads a consumer's file of at most 1 MiB.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrStack, maxFileBytes)
	}
	return b, nil
}
