package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

const testDigest = digest.Digest("sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae")

func TestParseReference(t *testing.T) {
	tests := []struct {
		in   string
		want Reference
		str  string // canonical form; "" means same as in
	}{
		{in: "ghcr.io/org/addon:v1.2.3", want: Reference{Registry: "ghcr.io", Repository: "org/addon", Tag: "v1.2.3"}},
		{in: "ghcr.io/org/addon", want: Reference{Registry: "ghcr.io", Repository: "org/addon"}},
		{in: "ghcr.io/org/addon@" + string(testDigest), want: Reference{Registry: "ghcr.io", Repository: "org/addon", Digest: testDigest}},
		{in: "ghcr.io/org/addon:v1@" + string(testDigest), want: Reference{Registry: "ghcr.io", Repository: "org/addon", Tag: "v1", Digest: testDigest}},
		{in: "localhost:5000/addon:latest", want: Reference{Registry: "localhost:5000", Repository: "addon", Tag: "latest"}},
		{in: "localhost/addon", want: Reference{Registry: "localhost", Repository: "addon"}},
		{in: "127.0.0.1:5000/a/b/c:1.0_rc-1", want: Reference{Registry: "127.0.0.1:5000", Repository: "a/b/c", Tag: "1.0_rc-1"}},
		{in: "[::1]:5000/addon:v1@" + string(testDigest), want: Reference{Registry: "[::1]:5000", Repository: "addon", Tag: "v1", Digest: testDigest}},
		{in: "registry.example.com:443/team/x.y_z-w", want: Reference{Registry: "registry.example.com", Repository: "team/x.y_z-w"}, str: "registry.example.com/team/x.y_z-w"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseReference(tt.in)
			if err != nil {
				t.Fatalf("ParseReference(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("ParseReference(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if got.String() != str {
				t.Errorf("String() = %q, want %q", got.String(), str)
			}
			if got.Repo() != tt.want.Registry+"/"+tt.want.Repository {
				t.Errorf("Repo() = %q", got.Repo())
			}
			again, err := ParseReference(got.String())
			if err != nil || again != got {
				t.Errorf("round trip of %q = %#v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseReferenceInvalid(t *testing.T) {
	for _, in := range []string{
		"",
		"addon",                         // no registry
		"addon:v1",                      // no registry
		"ghcr.io/",                      // no repository
		"ghcr.io/Org/addon",             // upper case repository
		"ghcr.io/org/addon:",            // empty tag
		"ghcr.io/org/addon:bad tag",     // space in tag
		"ghcr.io/org/addon:-v1",         // tag starts with '-'
		"ghcr.io/org/addon@",            // empty digest
		"ghcr.io/org/addon@sha256:abc",  // short digest
		"ghcr.io/org/addon@md5:abc",     // unknown algorithm
		"ghcr.io/org/addon:v1@sha256:x", // bad digest after tag
		"ghcr.io/org/addon:bad tag@" + string(testDigest),
		"ghcr.io/org/addon@" + string(testDigest) + "@" + string(testDigest),
		"user@ghcr.io/org/addon",
		"ghcr.io:port/addon",
	} {
		t.Run(in, func(t *testing.T) {
			_, err := ParseReference(in)
			if !errors.Is(err, ErrInvalidReference) {
				t.Fatalf("ParseReference(%q) error = %v, want ErrInvalidReference", in, err)
			}
			if !strings.Contains(err.Error(), "\""+in+"\"") {
				t.Errorf("error %q does not name the input", err)
			}
		})
	}
}

func TestReferenceWithDigest(t *testing.T) {
	r := mustParse(t, "localhost:5000/org/addon:v1")
	got := r.WithDigest(testDigest)
	want := "localhost:5000/org/addon@" + string(testDigest)
	if got.String() != want || got.Tag != "" || got.Digest != testDigest {
		t.Fatalf("WithDigest = %#v (%s), want %s", got, got, want)
	}
	if r.Tag != "v1" {
		t.Fatalf("WithDigest modified the receiver: %#v", r)
	}
}

func TestResolveTargetNeedsTagOrDigest(t *testing.T) {
	c := newTestClient(t, Options{})
	_, err := c.Resolve(t.Context(), mustParse(t, "registry.example.com/org/addon"))
	if !errors.Is(err, ErrInvalidReference) {
		t.Fatalf("Resolve without tag or digest: %v, want ErrInvalidReference", err)
	}
}

func TestReferenceJSON(t *testing.T) {
	ref := Reference{Registry: "localhost:5000", Repository: "addons/hello", Tag: "0.1.0", Digest: testDigest}
	b, err := json.Marshal(struct{ R Reference }{ref})
	if err != nil || string(b) != `{"R":"localhost:5000/addons/hello:0.1.0@`+string(testDigest)+`"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back struct{ R Reference }
	if err := json.Unmarshal(b, &back); err != nil || back.R != ref {
		t.Fatalf("Unmarshal = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"R":"no registry"}`), &back); !errors.Is(err, ErrInvalidReference) {
		t.Fatalf("Unmarshal of a bad reference: %v", err)
	}
}

// TestCanonicalHost: one spelling per registry (issue 17 item 6), so that a
// policy scope written for one spelling applies to every other.
func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:5000":            "localhost:5000",
		"LOCALHOST:5000":            "localhost:5000",
		"LocalHost:05000":           "localhost:5000",
		"localhost.:5000":           "localhost:5000",
		"localhost:443":             "localhost:443", // loopback: the port is probed as written
		"127.0.0.1:00080":           "127.0.0.1:80",
		"[::1]:5000":                "[::1]:5000",
		"[0:0:0:0:0:0:0:1]:05000":   "[::1]:5000",
		"[0000::0001]":              "[::1]",
		"[FE80::AB]:5000":           "[fe80::ab]:5000",
		"Registry.Example.COM":      "registry.example.com",
		"registry.example.com.":     "registry.example.com",
		"registry.example.com:443":  "registry.example.com",
		"registry.example.com:0443": "registry.example.com",
		"registry.example.com:80":   "registry.example.com:80",
		"registry.example.com:8443": "registry.example.com:8443",
		"index.docker.io":           "docker.io",
		"REGISTRY-1.docker.io:443":  "docker.io",
		"ghcr.io":                   "ghcr.io",
	} {
		got, err := CanonicalHost(in)
		if err != nil || got != want {
			t.Errorf("CanonicalHost(%q) = %q, %v; want %q", in, got, err, want)
		}
		// Canonical is a fixed point.
		if again, err := CanonicalHost(got); err != nil || again != got {
			t.Errorf("CanonicalHost(%q) = %q, %v: not a fixed point", got, again, err)
		}
	}
	for _, in := range []string{"localhost:0", "localhost:65536", "localhost:+5", "localhost:", "[::1", "[::1]x", "[127.0.0.1]:5", "[fe80::1%eth0]:5", "::1", ":5000", "."} {
		if got, err := CanonicalHost(in); !errors.Is(err, ErrInvalidReference) {
			t.Errorf("CanonicalHost(%q) = %q, %v; want ErrInvalidReference", in, got, err)
		}
	}
	// In references, before anything else sees them.
	for _, s := range []string{"LOCALHOST:5000/addons/hello:0.1.0", "localhost:05000/addons/hello:0.1.0", "localhost.:5000/addons/hello:0.1.0"} {
		ref, err := ParseReference(s)
		if err != nil || ref.String() != "localhost:5000/addons/hello:0.1.0" {
			t.Errorf("ParseReference(%q) = %v, %v", s, ref, err)
		}
	}
	if ref, err := ParseReference("[0::1]:05000/addons/hello@sha256:" + strings.Repeat("a", 64)); err != nil || ref.Registry != "[::1]:5000" {
		t.Errorf("IPv6: %v %v", ref, err)
	}
}

func TestParseImageReference(t *testing.T) {
	const d = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"
	for in, want := range map[string]Reference{
		"nginx":                           {Registry: "index.docker.io", Repository: "library/nginx", Tag: "latest"},
		"hashicorp/http-echo:1.0.0":       {Registry: "index.docker.io", Repository: "hashicorp/http-echo", Tag: "1.0.0"},
		"localhost:5000/img/a:v2":         {Registry: "localhost:5000", Repository: "img/a", Tag: "v2"},
		"ghcr.io/o/i@" + d:                {Registry: "ghcr.io", Repository: "o/i", Digest: d},
		"registry.k8s.io/x/y:v1.2.3@" + d: {Registry: "registry.k8s.io", Repository: "x/y", Tag: "v1.2.3", Digest: d},
	} {
		got, err := ParseImageReference(in)
		if err != nil || got != want {
			t.Errorf("ParseImageReference(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := ParseImageReference("UPPER/case"); !errors.Is(err, ErrInvalidReference) {
		t.Errorf("invalid: %v", err)
	}
}
