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
