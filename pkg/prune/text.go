package prune

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the plan for a person: what is kept and why, what
// would be deleted, what stays and why.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "repository %s\n", p.Repository)
	for _, k := range p.Keep {
		fmt.Fprintf(&b, "keep    %-14s %s  %s\n", k.Tag, k.Digest, k.Reason)
	}
	for _, it := range p.Delete {
		fmt.Fprintf(&b, "delete  %s\n", it)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "skip    %s\n", describeSkip(s))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText writes what was deleted and what stayed.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, it := range r.Deleted {
		fmt.Fprintf(&b, "deleted %s\n", it)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %s\n", describeSkip(s))
	}
	fmt.Fprintf(&b, "%d deleted from %s\n", len(r.Deleted), r.Repository)
	_, err := io.WriteString(w, b.String())
	return err
}

// describeSkip is one line of what stays: kind, digest, the tag and release
// that led to it, and why it stays.
func describeSkip(s Skip) string {
	out := fmt.Sprintf("%-8s %s", s.Kind, s.Digest)
	if s.Tag != "" {
		out += " " + s.Tag
	}
	if s.Release != "" {
		out += " of release " + s.Release
	}
	return out + "  " + s.Reason
}

// Report is what prune prints: the plan and, unless it was a dry run, the
// result (specs/cli-output.md).
type Report struct {
	DryRun bool    `json:"dryRun"`
	Plan   *Plan   `json:"plan"`
	Result *Result `json:"result,omitempty"`
}

// WriteText writes the plan and what a dry run left, or the result.
func (r Report) WriteText(w io.Writer) error {
	if !r.DryRun {
		return r.Result.WriteText(w)
	}
	if err := r.Plan.WriteText(w); err != nil {
		return err
	}
	msg := "nothing to delete"
	if len(r.Plan.Delete) > 0 {
		msg = r.Plan.DryRunNote()
	}
	_, err := fmt.Fprintln(w, msg)
	return err
}

// DryRunNote is the line that says a plan was not carried out.
func (p *Plan) DryRunNote() string {
	return fmt.Sprintf("dry run: nothing deleted (%d to delete; --yes deletes)", len(p.Delete))
}
