// Package tally counts the costly steps a call takes — kustomize builds,
// config schema compilations, conversion-chain compilations — so that tests
// can pin how many of each a verb does: a change that adds a render or a
// compilation fails them until the pin is updated on purpose. The counter
// travels in the context a caller passes down (With); the packages that do
// the work add to it (Add). Without a counter in the context, Add is one
// context lookup, and nothing is recorded anywhere: there is no
// package-level state.
package tally

import (
	"context"
	"sync/atomic"
)

// Kind is a costly step.
type Kind int

// The steps counted.
const (
	// KustomizeBuild is one run of kustomize over a package tree
	// (render.Build, Check or Overlay).
	KustomizeBuild Kind = iota
	// SchemaCompile is one compilation of a config schema
	// (schema.Compile, by pkg/config).
	SchemaCompile
	// ConversionChain is one compilation of a config type's conversion
	// chain, its CEL expressions included (convert.New, by pkg/config).
	ConversionChain
	kinds
)

// Counter counts steps; it is safe for concurrent use. The zero value is
// ready.
type Counter struct{ n [kinds]atomic.Int64 }

// Counts is what a Counter has counted.
type Counts struct {
	KustomizeBuilds, SchemaCompilations, ConversionChains int64
}

// Counts returns what c has counted so far.
func (c *Counter) Counts() Counts {
	return Counts{c.n[KustomizeBuild].Load(), c.n[SchemaCompile].Load(), c.n[ConversionChain].Load()}
}

// Reset sets every count back to zero.
func (c *Counter) Reset() {
	for i := range c.n {
		c.n[i].Store(0)
	}
}

type key struct{}

// With returns a context whose calls count their steps in c.
func With(ctx context.Context, c *Counter) context.Context {
	return context.WithValue(ctx, key{}, c)
}

// Add counts one step of kind k in the context's Counter, if it has one.
func Add(ctx context.Context, k Kind) {
	if c, ok := ctx.Value(key{}).(*Counter); ok && k >= 0 && k < kinds {
		c.n[k].Add(1)
	}
}
