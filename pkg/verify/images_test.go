package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/verify"
)

func TestImageGlob(t *testing.T) {
	tests := []struct {
		glob, image string
		want        bool
	}{
		{"ghcr.io/example/*", "ghcr.io/example/app", true},
		{"ghcr.io/example/*", "ghcr.io/example/app:1.0", true},
		{"ghcr.io/example/*", "ghcr.io/example/app@sha256:abc", true},
		{"ghcr.io/example/*", "ghcr.io/example/team/app", false},
		{"ghcr.io/example/*", "ghcr.io/example-evil/app", false},
		{"ghcr.io/example/**", "ghcr.io/example/team/app:1.0", true},
		{"ghcr.io/example/**", "ghcr.io/other/app", false},
		{"ghcr.io/ex.mple/app:*", "ghcr.io/exXmple/app:1", false}, // "." is literal
		{"docker.io/library/busybox:1.*", "docker.io/library/busybox:1.36", true},
		{"docker.io/library/busybox:1.*", "docker.io/library/busybox:2.0", false},
	}
	for _, tt := range tests {
		r := verify.ImageRule{Glob: tt.glob}
		if got := r.MatchImage(tt.image); got != tt.want {
			t.Errorf("%s ~ %s = %v, want %v", tt.glob, tt.image, got, tt.want)
		}
	}
	for _, bad := range []string{"*/example/app", "ghcr.io", "ghcr.io/", "/app", "ghcr.io/a b", "ghcr.io/[ab]", "ghcr.io/a?b", strings.Repeat("a/", 600)} {
		if _, err := verify.ImageGlob(bad); !errors.Is(err, verify.ErrPolicy) {
			t.Errorf("ImageGlob(%q) = %v, want ErrPolicy", bad, err)
		}
	}
}

// TestImagesDigest: images are part of the digest; a policy without them
// keeps its digest (TestKeylessRequireDigest pins one such digest).
func TestImagesDigest(t *testing.T) {
	getenv := vectorEnv(t)
	path := filepath.Join("..", "..", "specs", "testdata", "policy", "valid", "images.yaml")
	p, err := verify.LoadPolicy(context.Background(), path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Images) != 3 || p.Images[0].Threshold != 2 || len(p.Images[2].Identities) != 1 {
		t.Fatalf("images: %+v", p.Images)
	}
	raw, _ := os.ReadFile(path)
	without, err := verify.ParsePolicy(context.Background(), []byte(strings.SplitN(string(raw), "images:", 2)[0]), path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Digest() == without.Digest() {
		t.Error("the digest ignores images")
	}
	changed, err := verify.ParsePolicy(context.Background(), []byte(strings.Replace(string(raw), "threshold: 2", "threshold: 1", 1)), path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if p.Digest() == changed.Digest() {
		t.Error("the digest ignores an images threshold")
	}
	if q := p.WithProvenance(verify.ProvenanceRules{Required: true}); len(q.Images) != 3 {
		t.Error("WithProvenance drops images")
	}
}

// FuzzImageGlob: a glob compiles or fails with ErrPolicy; a compiled glob
// without "**" matches only images with as many "/" as it has (a single
// "*" never crosses one).
func FuzzImageGlob(f *testing.F) {
	for _, s := range []string{"ghcr.io/example/*", "ghcr.io/example/**", "docker.io/library/busybox:1.*", "*/x", "a/***"} {
		f.Add(s, "ghcr.io/example/app:1.0")
	}
	f.Add("ghcr.io/*/*", "ghcr.io/example/team/app:1.0")
	f.Add("ghcr.io/example/app*", "ghcr.io/example/app/x")
	f.Fuzz(func(t *testing.T, glob, image string) {
		re, err := verify.ImageGlob(glob)
		if err != nil {
			if !errors.Is(err, verify.ErrPolicy) {
				t.Fatalf("error outside ErrPolicy: %v", err)
			}
			return
		}
		if !strings.Contains(glob, "/") || !strings.HasPrefix(re.String(), "^") {
			t.Fatalf("accepted %q as %s", glob, re)
		}
		if !strings.Contains(glob, "*") && re.MatchString(image) != (image == glob) {
			t.Fatalf("literal glob %q matched %q", glob, image)
		}
		if !strings.Contains(glob, "**") && re.MatchString(image) && strings.Count(image, "/") != strings.Count(glob, "/") {
			t.Fatalf("glob %q without ** matched %q across a /", glob, image)
		}
	})
}

// TestImageGlobNeedsTag: a glob whose last path segment has no "*", ":" or
// "@" matches only an image written without tag and digest, never what a
// Pod pins: the loader refuses it, naming the glob.
func TestImageGlobNeedsTag(t *testing.T) {
	for _, g := range []string{"ghcr.io/example/app", "ghcr.io/**/app", "localhost:5000/app", "ghcr.io/*/app"} {
		_, err := verify.ImageGlob(g)
		if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), `"`+g+`"`) || !strings.Contains(err.Error(), "last path segment") {
			t.Errorf("ImageGlob(%q) = %v, want ErrPolicy naming it and its last path segment", g, err)
		}
	}
	for _, g := range []string{"ghcr.io/example/app:*", "ghcr.io/example/app@sha256:*", "ghcr.io/example/app*", "ghcr.io/example/**", "ghcr.io/example/app:1.0"} {
		if _, err := verify.ImageGlob(g); err != nil {
			t.Errorf("ImageGlob(%q): %v", g, err)
		}
	}
	_, err := verify.LoadPolicy(context.Background(), filepath.Join("..", "..", "specs", "testdata", "policy", "invalid", "images-glob-no-tag.yaml"), vectorEnv(t))
	if !errors.Is(err, verify.ErrPolicy) || !strings.Contains(err.Error(), `glob "ghcr.io/example/app": its last path segment`) {
		t.Errorf("the vector: %v, want ErrPolicy naming the glob", err)
	}
}
