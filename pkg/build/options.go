package build

import (
	"time"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/vcs"
)

// Epoch returns the `created` time of a build with no SOURCE_DATE_EPOCH and
// no git commit: 1970-01-01T00:00:00Z, fixed so that builds stay reproducible.
func Epoch() time.Time { return time.Unix(0, 0).UTC() }

// Options tune a build. The zero value is valid: default limits, no VCS
// lookup, created = Epoch.
type Options struct {
	// Created overrides the `created` annotation (SOURCE_DATE_EPOCH).
	Created *time.Time
	// Revision overrides the `revision` annotation.
	Revision string
	// VCS, when set, supplies created and revision from the source's git
	// commit when they are not overridden.
	VCS vcs.Describer
	// Limits bound the package tree; zero means archive.DefaultLimits().
	Limits *archive.Limits
	// SchemaLimits bound the config schema; zero means schema.DefaultLimits().
	SchemaLimits *schema.Limits
	// Memo, with Renderer, skips the render check of a tree that passed
	// it before (same layer digest, same renderer).
	Memo Memo
	// Renderer identifies the program doing the render check (its
	// version and build, kustomize's version); Memo is not used without it.
	Renderer string
	// Progress, when set, is told while the tree is packed how many bytes
	// of its files have been read, of total: for a progress display. It is
	// called from the building goroutine.
	Progress func(read, total int64)
}

func (o Options) limits() archive.Limits {
	if o.Limits != nil {
		return *o.Limits
	}
	return archive.DefaultLimits()
}

func (o Options) schemaLimits() schema.Limits {
	if o.SchemaLimits != nil {
		return *o.SchemaLimits
	}
	return schema.DefaultLimits()
}
