package versions_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/versions"
)

// tagList is a Lister over a fixed list.
type tagList []string

func (l tagList) Tags(context.Context, registry.Reference, registry.TagLimits) ([]string, error) {
	return l, nil
}

var repo = registry.Reference{Registry: "registry.example", Repository: "addons/cert-manager"}

func TestResolve(t *testing.T) {
	tags := tagList{"latest", "1.13.0", "1.14.0", "1.15.0-rc.1", "1.15.3", "v1.16.0", "2.0.0-alpha.1", "2.0.0"}
	tests := []struct {
		rng     string
		lowest  bool
		want    string
		ignored string
		err     error
	}{
		{rng: ">=1.14.0, <2.0.0", want: "registry.example/addons/cert-manager:1.15.3", ignored: "v1.16.0"},
		{rng: ">=1.14.0, <2.0.0", lowest: true, want: "registry.example/addons/cert-manager:1.14.0", ignored: "v1.16.0"},
		{rng: "~1.15.0-rc.0", want: "registry.example/addons/cert-manager:1.15.3"},
		{rng: "=1.15.0-rc.1", want: "registry.example/addons/cert-manager:1.15.0-rc.1"},
		{rng: ">=3", err: semver.ErrNoMatch},
	}
	for _, tt := range tests {
		r, err := semver.ParseRange(tt.rng)
		if err != nil {
			t.Fatal(err)
		}
		got, err := versions.Resolve(t.Context(), tags, repo, r, versions.Options{Lowest: tt.lowest})
		if tt.err != nil {
			if !errors.Is(err, tt.err) || !strings.HasPrefix(err.Error(), "registry.example/addons/cert-manager: ") {
				t.Errorf("%s: err = %v, want %v naming the repository", tt.rng, err, tt.err)
			}
			continue
		}
		if err != nil || got.Ref.String() != tt.want || strings.Join(got.Ignored, " ") != tt.ignored {
			t.Errorf("%s: got %v %v %v, want %s ignoring %q", tt.rng, got.Ref, got.Ignored, err, tt.want, tt.ignored)
		}
	}
}

func TestListFailsWithTheLister(t *testing.T) {
	boom := fmt.Errorf("tags of x: %w", registry.ErrTooLarge)
	_, err := versions.List(t.Context(), failing{boom}, repo, versions.Options{})
	if !errors.Is(err, registry.ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

type failing struct{ err error }

func (f failing) Tags(context.Context, registry.Reference, registry.TagLimits) ([]string, error) {
	return nil, f.err
}

func ExampleList() {
	r, _ := semver.ParseRange("^1.14.0")
	list, _ := versions.List(context.Background(), tagList{"1.13.0", "1.15.3", "latest", "1.14.0"}, repo, versions.Options{Range: &r})
	for _, v := range list.Versions {
		fmt.Println(v.Tag)
	}
	// Output:
	// 1.14.0
	// 1.15.3
}
