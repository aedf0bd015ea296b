package verify_test

import (
	"testing"

	"github.com/addonpack/addonpack/pkg/verify"
)

func TestMatchPattern(t *testing.T) {
	for _, c := range []struct {
		pattern, value string
		want           bool
	}{
		{"https://github.com/example/addons", "https://github.com/example/addons", true},
		{"https://github.com/example/addons", "https://github.com/example/addons2", false},
		{"https://github.com/example/*", "https://github.com/example/addons", true},
		// the attack of issue 17 item 10: a sibling whose name extends the segment
		{"https://github.com/example/*", "https://github.com/example-evil/addons", false},
		{"https://github.com/example*", "https://github.com/example-evil/addons", false},
		{"https://github.com/example/*", "https://github.com/example/addons/fork", false},
		{"https://github.com/example/*", "https://github.com/example", false},
		{"https://github.com/example/**", "https://github.com/example/addons/fork", true},
		{"https://github.com/example/**", "https://github.com/example/addons", true},
		{"https://github.com/example/**", "https://github.com/example", false},
		{"https://github.com/example/**", "https://github.com/example-evil/addons", false},
		{"https://github.com/*/addons", "https://github.com/example/addons", true},
		{"https://github.com/*/addons", "https://github.com/a/b/addons", false},
		{"https://*.example.com/x", "https://ci.example.com/x", true},
		{"https://*.example.com/x", "https://evil.com/.example.com/x", false},
		// builder ids: the tag segment, and only it, is free
		{"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/*",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1.2.3", true},
		{"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/*",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/heads/main", false},
		{"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1.*",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1.4.0", true},
		{"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1.*",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v2.0.0", false},
		{"https://github.com/example/addons/.github/workflows/*",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1", false},
		{"https://github.com/example/addons/.github/workflows/**",
			"https://github.com/example/addons/.github/workflows/release.yml@refs/tags/v1", true},
		// metacharacters other than * are literal
		{"https://ci.example/b?ild", "https://ci.example/build", false},
		{"https://ci.example/b?ild", "https://ci.example/b?ild", true},
		{"https://ci.example/[a]", "https://ci.example/a", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"*", "", true},
		{"*", "a/b", false},
		{"**", "a", true}, // "**" with no segment before it is an ordinary "*"
		{"", "", true},
		{"", "x", false},
	} {
		if got := verify.MatchPattern(c.pattern, c.value); got != c.want {
			t.Errorf("MatchPattern(%q, %q) = %v, want %v", c.pattern, c.value, got, c.want)
		}
	}
}

func FuzzMatchPattern(f *testing.F) {
	f.Add("https://github.com/example/*", "https://github.com/example-evil/addons")
	f.Add("https://github.com/example/**", "https://github.com/example/a/b")
	f.Add("a*b*c*", "aaabbbccc")
	f.Fuzz(func(t *testing.T, p, v string) {
		if len(p) > 256 || len(v) > 256 {
			return
		}
		got := verify.MatchPattern(p, v)
		// A pattern without "*" matches exactly itself.
		if !containsStar(p) && got != (p == v) {
			t.Fatalf("MatchPattern(%q, %q) = %v", p, v, got)
		}
		// Every value matches itself as a pattern.
		if !containsStar(v) && !verify.MatchPattern(v, v) {
			t.Fatalf("%q does not match itself", v)
		}
	})
}

func containsStar(s string) bool {
	for i := range len(s) {
		if s[i] == '*' {
			return true
		}
	}
	return false
}
