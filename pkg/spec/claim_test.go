package spec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/spec"
)

func TestClaimCheck(t *testing.T) {
	addon := func(name, version string) *spec.Addon {
		a := &spec.Addon{}
		a.Metadata.Name, a.Spec.Version = name, version
		return a
	}
	ann := func(v string) map[string]string { return map[string]string{spec.AnnotationVersion: v} }
	for _, c := range []struct {
		name  string
		claim spec.Claim
		addon *spec.Addon
		ann   map[string]string
		want  []string // substrings of the refusal; nil means accepted
	}{
		{"exact", spec.Claim{Repository: "addons/hello", Tag: "0.1.0"}, addon("hello", "0.1.0"), ann("0.1.0"), nil},
		{"another add-on under this tag", spec.Claim{Repository: "addons/hello", Tag: "0.1.0"}, addon("other", "6.6.6"), ann("6.6.6"),
			[]string{`names add-on "hello"`, "other 6.6.6"}},
		{"older release re-tagged as newer", spec.Claim{Repository: "addons/hello", Tag: "0.2.0"}, addon("hello", "0.1.0"), ann("0.1.0"),
			[]string{"tag 0.2.0 claims version 0.2.0", "hello 0.1.0"}},
		{"build metadata as _", spec.Claim{Repository: "addons/hello", Tag: "1.2.3_build.7"}, addon("hello", "1.2.3+build.7"), nil, nil},
		{"other build metadata", spec.Claim{Repository: "addons/hello", Tag: "1.2.3_build.8"}, addon("hello", "1.2.3+build.7"), nil,
			[]string{"claims version 1.2.3+build.8", "hello 1.2.3+build.7"}},
		{"no build metadata in the tag", spec.Claim{Repository: "addons/hello", Tag: "1.2.3"}, addon("hello", "1.2.3+build.7"), nil,
			[]string{"claims version 1.2.3 "}},
		{"pre-release", spec.Claim{Repository: "addons/hello", Tag: "2.0.0-rc.1"}, addon("hello", "2.0.0"), nil,
			[]string{"claims version 2.0.0-rc.1"}},
		{"a v prefix is not a version (as for ranges)", spec.Claim{Repository: "addons/hello", Tag: "v0.2.0"}, addon("hello", "0.1.0"), nil, nil},
		{"latest claims nothing", spec.Claim{Repository: "addons/hello", Tag: "latest"}, addon("hello", "0.1.0"), ann("0.1.0"), nil},
		{"stable claims nothing", spec.Claim{Repository: "addons/hello", Tag: "stable"}, addon("hello", "0.1.0"), nil, nil},
		{"a partial version claims nothing", spec.Claim{Repository: "addons/hello", Tag: "0.1"}, addon("hello", "0.1.5"), nil, nil},
		{"digest claims no version", spec.Claim{Repository: "addons/hello"}, addon("hello", "0.1.0"), nil, nil},
		{"digest still claims the name", spec.Claim{Repository: "addons/hello"}, addon("other", "0.1.0"), nil, []string{`"hello"`, "other 0.1.0"}},
		{"annotation disagrees", spec.Claim{Repository: "addons/hello", Tag: "latest"}, addon("hello", "0.1.0"), ann("0.2.0"),
			[]string{"annotation says 0.2.0", "hello 0.1.0"}},
		{"mirror that renames, named", spec.Claim{Repository: "vendor/hello-addon", Tag: "0.1.0", Name: "hello"}, addon("hello", "0.1.0"), nil, nil},
		{"mirror that renames, unnamed", spec.Claim{Repository: "vendor/hello-addon", Tag: "0.1.0"}, addon("hello", "0.1.0"), nil,
			[]string{`names add-on "hello-addon"`, "hello 0.1.0", "--name"}},
		{"named, but another add-on", spec.Claim{Repository: "vendor/hello-addon", Tag: "0.1.0", Name: "hello"}, addon("other", "0.1.0"), nil,
			[]string{`add-on "hello" was expected`, "other 0.1.0"}},
		{"the name overrides the repository", spec.Claim{Repository: "addons/hello", Name: "other"}, addon("hello", "0.1.0"), nil,
			[]string{`add-on "other" was expected`}},
		{"single-element repository", spec.Claim{Repository: "hello", Tag: "0.1.0"}, addon("hello", "0.1.0"), nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.claim.Check("r.example/"+c.claim.Repository, c.addon, c.ann)
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, spec.ErrClaim) {
				t.Fatalf("got %v, want ErrClaim", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

func TestTagVersion(t *testing.T) {
	for tag, want := range map[string]string{
		"1.2.3": "1.2.3", "v1.2.3": "", "1.2.3_b.1": "1.2.3+b.1", "1.2.3-rc.1_x": "1.2.3-rc.1+x",
		"latest": "", "1.2": "", "01.2.3": "", "1.2.3_a_b": "", "V1.2.3": "", "": "", "sha256-abc.sig": "",
	} {
		got, ok := spec.TagVersion(tag)
		if got != want || ok != (want != "") {
			t.Errorf("TagVersion(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
}
