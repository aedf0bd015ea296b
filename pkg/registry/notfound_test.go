package registry

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// TestExplainNotFound: a 404 says which part of the reference is unknown.
func TestExplainNotFound(t *testing.T) {
	a := buildArtifact(t, "a", "x")
	other := buildArtifact(t, "b", "x")
	c, ref := pushed(t, a, nil, Options{})
	// The sha256- tag stands for cosign's signature tags: never a suggestion.
	for _, tag := range []string{"v2", "v1.0.0", "v1-rc", "latest", "0.1.0", "sha256-" + strings.Repeat("a", 64) + ".sig"} {
		r := ref
		r.Tag = tag
		if _, err := c.Push(t.Context(), a.store, a.root, r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		ref  Reference
		want []string
	}{
		{"unknown repository", mustParse(t, ref.Registry+"/org/adon:v1"), []string{"repository " + ref.Registry + "/org/adon does not exist"}},
		{"unknown tag", mustParse(t, ref.Repo()+":v1.0.1"), []string{`has no tag "v1.0.1"`, "closest of its 6 tags: v1.0.0, v1, v1-rc, 0.1.0, v2"}},
		{"unknown digest", ref.WithDigest(other.root.Digest), []string{"exists but has no manifest " + other.root.Digest.String()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Resolve(t.Context(), tt.ref)
			err = c.ExplainNotFound(t.Context(), tt.ref, err)
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.ref.String()) {
				t.Fatalf("%v, want ErrNotFound naming %s", err, tt.ref)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "sha256-") {
				t.Errorf("%v\nsuggests a signature tag", err)
			}
		})
	}
	// Other errors pass through unchanged.
	plain := errors.New("x")
	if got := c.ExplainNotFound(t.Context(), ref, plain); got != plain {
		t.Fatalf("ExplainNotFound changed %v into %v", plain, got)
	}
}

func TestCloseTags(t *testing.T) {
	got := closeTags("1.2.4", []string{"1.2.3", "2.0.0", "1.2.40", "latest", "1.3.4", "0.1.0"}, 3)
	if strings.Join(got, " ") != "1.2.40 1.2.3 1.3.4" {
		t.Fatalf("closeTags = %v", got)
	}
	if got := closeTags("x", nil, 5); len(got) != 0 {
		t.Fatalf("closeTags of none = %v", got)
	}
}

// TestNothingListening: a connection refused says nothing is listening,
// and does not quote an https:// URL a loopback registry is never spoken
// to over (the TLS probe's).
func TestNothingListening(t *testing.T) {
	host := closedHost(t)
	for _, h := range []string{host, strings.Replace(host, "127.0.0.1", "localhost", 1)} {
		_, err := newTestClient(t, Options{}).Resolve(t.Context(), mustParse(t, h+"/addons/hello:0.1.0"))
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "nothing is listening") || !strings.Contains(err.Error(), h) ||
			strings.Contains(err.Error(), "https://") || !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("%v, want ErrUnreachable saying nothing listens at %s, without an https:// URL", err, h)
		}
	}
}
