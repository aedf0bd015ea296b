package spec

import (
	"fmt"
	"path"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/semver"
)

// ErrClaim is matched by every refusal of a reference whose repository or
// tag claims another add-on or version than the signed config blob holds
// (specs/artifact.md section 11.6). Signatures cover a digest, not a name:
// this is what binds the name to the bytes. It is a verification failure.
var ErrClaim = errdef.New(errdef.ErrVerification, "the reference does not name the signed add-on")

// Claim is what a reference says about the add-on it names.
type Claim struct {
	// Repository is the repository path ("addons/hello", no registry); its
	// last element names the add-on unless Name is set.
	Repository string
	// Tag is the reference's tag ("" for a reference by digest alone).
	Tag string
	// Name is the add-on the consumer expects (--name, a policy's names,
	// a stack entry); "" means the last element of Repository.
	Name string
}

// ExpectedName is the add-on name the claim requires.
func (c Claim) ExpectedName() string {
	if c.Name != "" {
		return c.Name
	}
	return path.Base(c.Repository)
}

// TagVersion returns the version a tag claims: a tag that is a strict
// semantic version, with "_" standing for "+" (OCI tags cannot hold "+"),
// claims that version — the same rule by which ranges read tags
// (semver.FromTag); any other tag ("latest", "stable", "1.2", "v1.2.3")
// claims none.
func TagVersion(tag string) (string, bool) {
	v, err := semver.FromTag(tag)
	if err != nil {
		return "", false
	}
	return v.String(), true
}

// Check refuses an add-on that is not the one the claim names: another
// metadata.name than the expected name, a semver tag that is not exactly
// spec.version, or an org.opencontainers.image.version annotation (of the
// manifest, given in annotations) that is not spec.version. ref names the
// reference in messages. Every refusal names both sides and matches ErrClaim.
func (c Claim) Check(ref string, a *Addon, annotations map[string]string) error {
	got := a.Metadata.Name + " " + a.Spec.Version
	if want := c.ExpectedName(); a.Metadata.Name != want {
		how := "the repository " + c.Repository + " names add-on " + fmt.Sprintf("%q", want)
		if c.Name != "" {
			how = fmt.Sprintf("add-on %q was expected", want)
		}
		return fmt.Errorf("%s: %s but the signed add-on is %s (a mirror that renames the repository names the add-on with --name or the policy's names): %w",
			ref, how, got, ErrClaim)
	}
	if v, ok := TagVersion(c.Tag); ok && v != a.Spec.Version {
		return fmt.Errorf("%s: tag %s claims version %s but the signed add-on is %s: %w", ref, c.Tag, v, got, ErrClaim)
	}
	if v, ok := annotations[AnnotationVersion]; ok && v != a.Spec.Version {
		return fmt.Errorf("%s: the manifest's %s annotation says %s but the signed add-on is %s: %w", ref, AnnotationVersion, v, got, ErrClaim)
	}
	return nil
}
