package tally_test

import (
	"context"
	"sync"
	"testing"

	"github.com/addonpack/addonpack/internal/tally"
)

// TestCounts: steps are counted in the context's counter, concurrently,
// per kind; a context without a counter, or an unknown kind, counts nothing
// and does not panic.
func TestCounts(t *testing.T) {
	var c tally.Counter
	ctx := tally.With(context.Background(), &c)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tally.Add(ctx, tally.KustomizeBuild)
			tally.Add(ctx, tally.SchemaCompile)
			tally.Add(ctx, tally.SchemaCompile)
			tally.Add(ctx, tally.ConversionChain)
			tally.Add(ctx, tally.Kind(99))
			tally.Add(ctx, tally.Kind(-1))
			tally.Add(context.Background(), tally.KustomizeBuild)
		}()
	}
	wg.Wait()
	if got, want := c.Counts(), (tally.Counts{KustomizeBuilds: 50, SchemaCompilations: 100, ConversionChains: 50}); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	c.Reset()
	if got := c.Counts(); got != (tally.Counts{}) {
		t.Fatalf("after Reset: %+v", got)
	}
	// A nested context keeps the counter; another With replaces it.
	var inner tally.Counter
	tally.Add(context.WithValue(ctx, struct{}{}, 1), tally.KustomizeBuild)
	tally.Add(tally.With(ctx, &inner), tally.KustomizeBuild)
	if c.Counts().KustomizeBuilds != 1 || inner.Counts().KustomizeBuilds != 1 {
		t.Fatalf("outer %+v, inner %+v", c.Counts(), inner.Counts())
	}
}
