package semver

import (
	"strings"
	"testing"
)

// FuzzSelect holds the resolution rules on arbitrary ranges and tag lists:
// no panic; a selected tag is one of the inputs, matches the range, is not a
// pre-release the npm rule excludes, and no higher matching version exists.
func FuzzSelect(f *testing.F) {
	for _, seed := range []struct{ rng, tags string }{
		{">=1.14.0, <2.0.0", strings.Join(fixtureTags, " ")},
		{">=1.15.0-rc.0, <2.0.0", "1.15.0-rc.1 1.16.0-rc.1 2.0.0-alpha.1"},
		{"^2.0.0-alpha.0 || 1.x", "2.0.0-alpha.1 1.2.3 1.2.3_b"},
		{"1.2 - 1.4.5", "1.3.0 1.4.5 1.4.6"},
		{"~1.2.3-beta.1", "1.2.3-beta.2 1.2.4"},
		{"1.5.0", "1.5.0_aws 1.5.0_gcp"},
	} {
		f.Add(seed.rng, seed.tags)
	}
	f.Fuzz(func(t *testing.T, rng, tags string) {
		r, err := ParseRange(rng)
		if err != nil {
			return
		}
		l := FromTags(strings.Fields(tags))
		got, err := l.Select(r, false)
		if err != nil {
			return
		}
		if !r.Match(got.Version) || !strings.Contains(" "+tags+" ", " "+got.Tag+" ") {
			t.Fatalf("Select(%q) = %q: not a matching input tag", rng, got.Tag)
		}
		for _, v := range l.Versions {
			if r.Match(v.Version) && v.Version.Compare(got.Version) > 0 {
				t.Fatalf("Select(%q) = %s, but %s matches and is higher", rng, got.Tag, v.Tag)
			}
		}
		if again, _ := l.Select(r, false); again.Tag != got.Tag {
			t.Fatalf("Select is not deterministic: %s then %s", got.Tag, again.Tag)
		}
	})
}
