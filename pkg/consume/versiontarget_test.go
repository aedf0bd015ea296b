package consume

import (
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

func TestVersionTarget(t *testing.T) {
	for _, tc := range []struct {
		arg, rng string
		offline  bool
		want     string // error text; "" for none
		class    error
	}{
		{"localhost:5000/addons/hello", "0.x", false, "", nil},
		{"localhost:5000/addons/hello", "0.x", true, "--version reads the repository's tag list: it cannot be used with --offline (name the tag)", errdef.ErrUsage},
		{"localhost:5000/addons/hello", "not a range", false, "--version: ", errdef.ErrUsage},
		{"./hello", "0.x", false, "--version: ./hello is a path: a version range picks a tag of a registry repository", errdef.ErrUsage},
		{"hello", "0.x", false, "no registry part", registry.ErrInvalidReference},
	} {
		repo, _, err := VersionTarget(tc.arg, tc.rng, tc.offline)
		if tc.want == "" {
			if err != nil || repo.Repo() == "" {
				t.Errorf("%s %s: %v, %v", tc.arg, tc.rng, repo, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.class) {
			t.Errorf("%s %s offline=%v: %v, want %q in %v", tc.arg, tc.rng, tc.offline, err, tc.want, tc.class)
		}
	}
}

func TestIsBareRepository(t *testing.T) {
	for arg, want := range map[string]bool{
		"localhost:5000/addons/hello":                                   true,
		"localhost:5000/addons/hello:0.1.0":                             false,
		"localhost:5000/addons/hello@sha256:" + strings.Repeat("a", 64): false,
		"./hello": false,
		"hello":   false,
	} {
		if got := IsBareRepository(arg); got != want {
			t.Errorf("%s: %v, want %v", arg, got, want)
		}
	}
}
