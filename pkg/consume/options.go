package consume

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// DefaultVerifiedTTL is how long a verification of a digest under a policy,
// remembered in the cache, stands before signatures are checked again.
const DefaultVerifiedTTL = time.Hour

// ErrOptions is matched by errors about Options that cannot work together.
var ErrOptions = errdef.New(errdef.ErrInvalidArgument, "invalid consumer options")

// Options say where artifacts are read from and how they must be trusted.
// The zero value is refused: it names no policy.
type Options struct {
	// Client reaches registries; required to open a registry reference.
	Client *registry.Client
	// Cache, when set, sits in front of every registry: blobs are served
	// from it and stored in it, tags' last resolutions and verified
	// digests are recorded in it. Nil: no cache.
	Cache *cache.Cache
	// Offline reads from the Cache alone and fetches nothing; it needs a
	// Cache.
	Offline bool

	// Policy is the trust every artifact's digest is verified under before
	// any of its content is read.
	Policy *verify.Policy
	// InsecureSkipVerify reads artifacts without verifying signatures: the
	// digests still prove integrity, not who published the artifact. It is
	// exclusive with Policy, and a warning is written to Warnings for every
	// artifact read so.
	InsecureSkipVerify bool
	// Warnings receives the warnings (InsecureSkipVerify); nil discards them.
	Warnings io.Writer
	// VerifiedTTL is how long a remembered verification stands; 0 means
	// DefaultVerifiedTTL.
	VerifiedTTL time.Duration
	// Name is the add-on (metadata.name) a registry reference must hold, for
	// a repository named otherwise (a mirror that renames, a stack entry);
	// "" means the policy's name for the repository, else the repository's
	// last path element (verify.Claim, specs/artifact.md section 11.6).
	Name string
}

// check refuses options that cannot work together.
func (o Options) check() error {
	switch {
	case o.Policy != nil && o.InsecureSkipVerify:
		return fmt.Errorf("%w: a policy and InsecureSkipVerify", ErrOptions)
	case o.Policy == nil && !o.InsecureSkipVerify:
		return fmt.Errorf("%w: verification needs a policy (or InsecureSkipVerify to skip it)", ErrOptions)
	case o.Offline && o.Cache == nil:
		return fmt.Errorf("%w: offline needs a cache", ErrOptions)
	}
	return nil
}

func (o Options) ttl() time.Duration {
	if o.VerifiedTTL > 0 {
		return o.VerifiedTTL
	}
	return DefaultVerifiedTTL
}

// memo returns the cache as the verified-digest memo, or nil.
func (o Options) memo() verify.Memo {
	if o.Cache == nil {
		return nil // not a typed nil in the interface
	}
	return o.Cache
}

// warnf writes a warning line, if anyone listens.
func (o Options) warnf(format string, args ...any) {
	if o.Warnings != nil {
		fmt.Fprintf(o.Warnings, "Warning: "+format+"\n", args...)
	}
}

// offlineErr marks a verification the memo does not hold, offline, as a
// miss of the cache.
func offlineErr(err error) error {
	if errors.Is(err, verify.ErrNotRemembered) {
		return fmt.Errorf("%w: %w", err, cache.ErrOffline)
	}
	return err
}
