package semver

import (
	"errors"
	"strings"
	"testing"
)

// fixtureTags are the versions issue 12's tests publish, with tags that name
// no version mixed in.
var fixtureTags = []string{
	"2.0.0", "latest", "1.13.0", "1.15.0-rc.1", "sha256-abc.sig", "1.14.0",
	"2.0.0-alpha.1", "1.15.3", "v1.16.0", "stable", "01.2.3",
}

func TestFromTags(t *testing.T) {
	l := FromTags(fixtureTags)
	var got []string
	for _, v := range l.Versions {
		got = append(got, v.Tag)
	}
	want := "1.13.0 1.14.0 1.15.0-rc.1 1.15.3 2.0.0-alpha.1 2.0.0"
	if strings.Join(got, " ") != want {
		t.Fatalf("versions = %v, want %s", got, want)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		rng     string
		version string
		want    bool
	}{
		{">=1.14.0, <2.0.0", "1.15.3", true},
		{">=1.14.0, <2.0.0", "1.15.0-rc.1", false},
		{">=1.14.0, <2.0.0", "2.0.0-alpha.1", false}, // IncludePrerelease would say true
		{">=1.15.0-rc.0, <2.0.0", "1.15.0-rc.1", true},
		{">=1.15.0-rc.0, <2.0.0", "1.16.0-rc.1", false}, // Masterminds alone says true
		{">=1.15.0-rc.0, <2.0.0", "2.0.0-alpha.1", false},
		{">=1.15.0-rc.0, <2.0.0", "1.15.3", true},
		{"^2.0.0-alpha.0", "2.0.0-alpha.1", true},
		{"^2.0.0-alpha.0", "2.0.0", true},
		{"^2.0.0-alpha.0", "2.1.0-beta.1", false},
		{"1.x", "1.13.0", true},
		{"~1.14", "1.14.9", true},
		{"~1.14", "1.15.0", false},
		{"1.13 - 1.14", "1.14.2", true},
		{"1.13 - 1.14", "1.15.0", false},
		{"<1.14.0 || >=2.0.0-alpha.0", "2.0.0-alpha.1", true},
		{"<1.14.0 || >=2.0.0-alpha.0", "1.15.0-rc.1", false},
		{"<1.14.0 || >=2.0.0-alpha.0", "1.13.0", true},
		{"=1.5.0", "1.5.0+aws", true},
		{"1.2-rc.1", "1.2.0-rc.2", true},
	}
	for _, tt := range tests {
		r, err := ParseRange(tt.rng)
		if err != nil {
			t.Fatalf("ParseRange(%q): %v", tt.rng, err)
		}
		if got := r.Match(MustParse(tt.version)); got != tt.want {
			t.Errorf("%q matches %s = %v, want %v", tt.rng, tt.version, got, tt.want)
		}
	}
}

func TestSelect(t *testing.T) {
	l := FromTags(fixtureTags)
	tests := []struct {
		rng    string
		lowest bool
		want   string
		err    error
		msg    string
	}{
		{rng: ">=1.14.0, <2.0.0", want: "1.15.3"},
		{rng: ">=1.14.0, <2.0.0", lowest: true, want: "1.14.0"},
		{rng: ">=1.15.0-rc.0, <1.15.1", want: "1.15.0-rc.1"},
		{rng: ">=2.0.0-alpha.0", want: "2.0.0"},
		{rng: ">=2.0.0-alpha.0, <2.0.0", want: "2.0.0-alpha.1"},
		{rng: "*", want: "2.0.0"},
		{rng: ">=3.0.0", err: ErrNoMatch, msg: `no version matches ">=3.0.0": available: 2.0.0, 2.0.0-alpha.1, 1.15.3, 1.15.0-rc.1, 1.14.0, 1.13.0`},
	}
	for _, tt := range tests {
		r, err := ParseRange(tt.rng)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Select(r, tt.lowest)
		if tt.err != nil {
			if !errors.Is(err, tt.err) || err.Error() != tt.msg {
				t.Errorf("Select(%q) error = %v, want %q", tt.rng, err, tt.msg)
			}
			continue
		}
		if err != nil || got.Tag != tt.want {
			t.Errorf("Select(%q, lowest=%v) = %q, %v; want %q", tt.rng, tt.lowest, got.Tag, err, tt.want)
		}
	}
}

func TestSelectEqualPrecedenceIsAnError(t *testing.T) {
	l := FromTags([]string{"1.5.0_gcp", "1.4.0", "1.5.0_aws"})
	_, err := l.Select(mustRange(t, ">=1.0.0"), false)
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "1.5.0_aws, 1.5.0_gcp") {
		t.Fatalf("err = %v, want ErrAmbiguous naming both tags", err)
	}
	// A tie below the chosen version does not matter.
	got, err := l.Select(mustRange(t, "<1.5.0"), false)
	if err != nil || got.Tag != "1.4.0" {
		t.Fatalf("Select(<1.5.0) = %v, %v", got.Tag, err)
	}
	if v := got.Version; v.Tag() != "1.4.0" {
		t.Fatalf("Tag() = %s", v.Tag())
	}
	if v, _ := FromTag("1.5.0_aws"); v.String() != "1.5.0+aws" || v.Tag() != "1.5.0_aws" {
		t.Fatalf("FromTag(1.5.0_aws) = %s / %s", v.String(), v.Tag())
	}
}

func TestNoMatchListsAtMostTen(t *testing.T) {
	l := FromTags([]string{"1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0", "1.8.0", "1.9.0", "1.10.0", "1.11.0"})
	_, err := l.Select(mustRange(t, ">=2"), false)
	want := `no version matches ">=2": available: 1.11.0, 1.10.0, 1.9.0, 1.8.0, 1.7.0, 1.6.0, 1.5.0, 1.4.0, 1.3.0, 1.2.0 … and 2 more`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if _, err := FromTags(nil).Select(mustRange(t, "*"), false); err == nil || !strings.HasSuffix(err.Error(), "the repository has no version tags") {
		t.Fatalf("empty list: %v", err)
	}
}

func TestNear(t *testing.T) {
	l := FromTags(fixtureTags)
	if got := l.Near(mustRange(t, ">=1.14.0, <2.0.0")); len(got) != 1 || got[0] != "v1.16.0" {
		t.Fatalf("Near = %v, want [v1.16.0]", got)
	}
	if got := l.Near(mustRange(t, "<1.14.0")); len(got) != 0 {
		t.Fatalf("Near(<1.14.0) = %v, want none", got)
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"", "  ", ">=1.2.3 <", "not a range", strings.Repeat("1", 300)} {
		if _, err := ParseRange(s); !errors.Is(err, ErrRange) {
			t.Errorf("ParseRange(%q) = %v, want ErrRange", s, err)
		}
	}
	for _, s := range []string{"v1.2.3", "1.2", "01.2.3", "1.2.3+a+b", "latest"} {
		if _, err := FromTag(s); !errors.Is(err, ErrVersion) {
			t.Errorf("FromTag(%q) = %v, want ErrVersion", s, err)
		}
	}
}

func mustRange(t *testing.T, s string) Range {
	t.Helper()
	r, err := ParseRange(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
