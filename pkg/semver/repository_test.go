package semver_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/errdef"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
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
		got, err := semver.ResolveRepository(t.Context(), tags, repo, r, semver.RepoOptions{Lowest: tt.lowest})
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
	_, err := semver.ListRepository(t.Context(), failing{boom}, repo, semver.RepoOptions{})
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
	list, _ := semver.ListRepository(context.Background(), tagList{"1.13.0", "1.15.3", "latest", "1.14.0"}, repo, semver.RepoOptions{Range: &r})
	for _, v := range list.Versions {
		fmt.Println(v.Tag)
	}
	// Output:
	// 1.14.0
	// 1.15.3
}

// pinClient is a Client over a fixed tag → digest map.
type pinClient map[string]digest.Digest

func (c pinClient) Tags(context.Context, registry.Reference, registry.TagLimits) ([]string, error) {
	return slices.Sorted(maps.Keys(c)), nil
}

func (c pinClient) Resolve(_ context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	d, ok := c[ref.Tag]
	if !ok {
		return ocispec.Descriptor{}, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
	}
	return ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d}, nil
}

func TestPin(t *testing.T) {
	c := pinClient{
		"1.14.0":        digest.FromString("1.14.0"),
		"1.15.3":        digest.FromString("1.15.3"),
		"2.0.0-alpha.1": digest.FromString("2.0.0-alpha.1"),
		"v1.16.0":       digest.FromString("v1.16.0"),
	}
	r, _ := semver.ParseRange(">=1.14.0, <2.0.0")
	got, err := semver.Pin(t.Context(), c, repo, r, semver.RepoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "registry.example/addons/cert-manager:1.15.3@" + digest.FromString("1.15.3").String()
	if got.Ref.String() != want || got.Version.String() != "1.15.3" || strings.Join(got.Ignored, " ") != "v1.16.0" {
		t.Fatalf("Pin = %v %v %v, want %s", got.Ref, got.Version, got.Ignored, want)
	}
	var b strings.Builder
	semver.Announce(&b, got)
	if b.String() != "Warning: registry.example/addons/cert-manager: ignoring tag v1.16.0: not a strict semantic version (write 1.16.0)\nresolved "+want+"\n" {
		t.Fatalf("Announce:\n%s", b.String())
	}

	// A reference that names its version already is refused: which wins?
	for _, ref := range []registry.Reference{
		{Registry: repo.Registry, Repository: repo.Repository, Tag: "1.14.0"},
		repo.WithDigest(digest.FromString("1.14.0")),
	} {
		_, err := semver.Pin(t.Context(), c, ref, r, semver.RepoOptions{})
		if !errors.Is(err, semver.ErrNotRepository) || !errors.Is(err, errdef.ErrInvalidArgument) || !strings.Contains(err.Error(), ref.String()) {
			t.Errorf("Pin(%s) err = %v, want ErrNotRepository naming it", ref, err)
		}
	}

	// No match: the range and what there is.
	none, _ := semver.ParseRange(">=3.0.0")
	_, err = semver.Pin(t.Context(), c, repo, none, semver.RepoOptions{})
	if !errors.Is(err, semver.ErrNoMatch) || !strings.Contains(err.Error(), `">=3.0.0"`) || !strings.Contains(err.Error(), "available: 2.0.0-alpha.1, 1.15.3, 1.14.0") {
		t.Fatalf("no match: %v", err)
	}

	// The chosen tag is gone when it is resolved: the error says which.
	_, err = semver.Pin(t.Context(), vanishing{c}, repo, r, semver.RepoOptions{})
	if !errors.Is(err, registry.ErrNotFound) || !strings.Contains(err.Error(), "cert-manager:1.15.3") {
		t.Fatalf("vanished tag: %v", err)
	}
}

// vanishing lists the tags of its pinClient but resolves none.
type vanishing struct{ pinClient }

func (vanishing) Resolve(_ context.Context, ref registry.Reference) (ocispec.Descriptor, error) {
	return ocispec.Descriptor{}, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
}

// TestPinOrNone: no matching version is no previous release, not an
// error; a tag that vanishes between listing and resolving still is one.
func TestPinOrNone(t *testing.T) {
	c := pinClient{"1.14.0": digest.FromString("1.14.0")}
	r, _ := semver.ParseRange("<1.15.0")
	got, none, err := semver.PinOrNone(t.Context(), c, repo, r, semver.RepoOptions{})
	if err != nil || none != "" || got.Ref.Tag != "1.14.0" || got.Ref.Digest != digest.FromString("1.14.0") {
		t.Fatalf("PinOrNone = %v %q %v", got.Ref, none, err)
	}
	older, _ := semver.ParseRange("<1.0.0")
	if _, none, err = semver.PinOrNone(t.Context(), c, repo, older, semver.RepoOptions{}); err != nil || !strings.Contains(none, `"<1.0.0"`) {
		t.Fatalf("no match: %q %v, want why and no error", none, err)
	}
	if _, none, err = semver.PinOrNone(t.Context(), vanishing{c}, repo, r, semver.RepoOptions{}); !errors.Is(err, registry.ErrNotFound) || none != "" {
		t.Fatalf("vanished tag: %q %v, want the error", none, err)
	}
	if _, _, err = semver.PinOrNone(t.Context(), c, registry.Reference{Registry: repo.Registry, Repository: repo.Repository, Tag: "1.14.0"}, r, semver.RepoOptions{}); !errors.Is(err, semver.ErrNotRepository) {
		t.Fatalf("a tagged reference: %v", err)
	}
}
