package mirror

import (
	"fmt"
	"io"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// The states a release ends in (specs/mirror.md section 4.1).
const (
	StateCopied    = "copied"
	StateUpToDate  = "up-to-date"
	StateDrift     = "drift"
	StateRefused   = "refused"
	StateWouldCopy = "would-copy"
)

// ErrDrift reports a destination tag that points at another digest than
// the source's: the upstream tag moved, or someone else wrote the mirror
// (exit 10, as lock --check's drift).
var ErrDrift = errdef.New(errdef.ErrConflict, "mirror drift")

// Release is one release of a source and what became of it.
type Release struct {
	// Source is REPOSITORY:TAG@DIGEST (a tarball import: TARBALL:LAYOUTTAG).
	Source string `json:"source"`
	// Destination is where it goes: PREFIX/PATH:TAG, or the tarball.
	Destination string        `json:"destination"`
	Tag         string        `json:"tag"`
	Digest      digest.Digest `json:"digest"`
	State       string        `json:"state"`
	// DestinationDigest is what the destination tag points at, on drift.
	DestinationDigest digest.Digest `json:"destinationDigest,omitempty"`
	// Copied counts the manifests copied (the artifact, cosign tags,
	// referrers, images).
	Copied int `json:"copied,omitempty"`
	// SignedBy are the keys or identities the destination verified it under
	// (the source's, with --dry-run or into a tarball).
	SignedBy []string `json:"signedBy,omitempty"`
	// Error says why it was refused or drifted.
	Error string `json:"error,omitempty"`

	err error
}

// Summary counts the releases by state.
type Summary struct {
	Copied    int `json:"copied"`
	UpToDate  int `json:"upToDate"`
	Drift     int `json:"drift"`
	Refused   int `json:"refused"`
	WouldCopy int `json:"wouldCopy"`
}

// Result is a run of a mirror file.
type Result struct {
	File        string    `json:"file"`
	Destination string    `json:"destination"`
	DryRun      bool      `json:"dryRun"`
	Releases    []Release `json:"releases"`
	// Unselected lists what a source selected nothing for, or tarball
	// releases no source selects.
	Unselected []string `json:"unselected,omitempty"`
	Summary    Summary  `json:"summary"`
}

// finish counts the states and returns the run's error: the first refusal
// (its own class decides the exit code), else drift.
func (r *Result) finish() error {
	r.Summary = Summary{}
	var refused, drift error
	for i := range r.Releases {
		rel := &r.Releases[i]
		switch rel.State {
		case StateCopied:
			r.Summary.Copied++
		case StateUpToDate:
			r.Summary.UpToDate++
		case StateWouldCopy:
			r.Summary.WouldCopy++
		case StateDrift:
			r.Summary.Drift++
			if drift == nil {
				drift = rel.err
			}
		case StateRefused:
			r.Summary.Refused++
			if refused == nil {
				refused = rel.err
			}
		}
	}
	if refused != nil {
		if r.Summary.Refused > 1 {
			return fmt.Errorf("%d releases refused; the first: %w", r.Summary.Refused, refused)
		}
		return refused
	}
	return drift
}

// refuse marks rel refused by err.
func (rel *Release) refuse(err error) {
	rel.State, rel.err, rel.Error = StateRefused, err, err.Error()
}

// drifted marks rel as drift: dst points at other.
func (rel *Release) drifted(dst registry.Reference, other digest.Digest) {
	rel.State, rel.DestinationDigest = StateDrift, other
	rel.err = fmt.Errorf("%s: %w: the destination holds %s, the source %s (not overwritten without --force)", dst, ErrDrift, other, rel.Digest)
	rel.Error = rel.err.Error()
}

// signers returns who v says signed, nil for no verdict.
func signers(v *verify.Result) []string {
	if v == nil {
		return nil
	}
	return v.SignedBy
}

// WriteText writes one line per release and the summary to w.
func (r *Result) WriteText(w io.Writer) error {
	for _, rel := range r.Releases {
		var err error
		switch rel.State {
		case StateCopied:
			_, err = fmt.Fprintf(w, "copied      %s -> %s (%d manifests, verified at the destination)\n", rel.Source, rel.Destination, rel.Copied)
		case StateUpToDate:
			_, err = fmt.Fprintf(w, "up to date  %s\n", rel.Destination)
		case StateWouldCopy:
			_, err = fmt.Fprintf(w, "would copy  %s -> %s\n", rel.Source, rel.Destination)
		default:
			_, err = fmt.Fprintf(w, "%-11s %s\n", rel.State, rel.Error)
		}
		if err != nil {
			return err
		}
	}
	for _, u := range r.Unselected {
		fmt.Fprintf(w, "nothing selected: %s\n", u)
	}
	s := r.Summary
	if s.Copied == 0 && s.WouldCopy == 0 {
		_, err := fmt.Fprintf(w, "nothing to copy: up to date %d, drift %d, refused %d\n", s.UpToDate, s.Drift, s.Refused)
		return err
	}
	_, err := fmt.Fprintf(w, "copied %d, would copy %d, up to date %d, drift %d, refused %d\n", s.Copied, s.WouldCopy, s.UpToDate, s.Drift, s.Refused)
	return err
}
