package commands_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// resolvedLine matches the line --version writes on stderr.
var resolvedLine = regexp.MustCompile(`(?m)^resolved (\S+):(\S+)@(sha256:[0-9a-f]{64})$`)

// TestVersionRange runs --version RANGE on every single-add-on consumer
// verb against issue 12's cert-manager releases (1.13.0, 1.14.0,
// 1.15.0-rc.1, 1.15.3, 2.0.0-alpha.1, 2.0.0), signed, on both registries.
func TestVersionRange(t *testing.T) {
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			w := newStackWorld(t, reg.host(t))
			repo := w.host + "/addons/cert-manager"
			key := w.managerKey + ".pub"
			out := t.TempDir()

			// The pre-release rule picks, on every verb.
			for _, tt := range []struct {
				rng, tag string
			}{
				{">=1.14.0, <2.0.0", "1.15.3"},            // never 2.0.0-alpha.1
				{">=1.15.0-rc.0, <1.15.3", "1.15.0-rc.1"}, // names a pre-release of 1.15.0
				{"^2.0.0-alpha.0", "2.0.0"},               // the release wins over its pre-release
				{"<1.15.3", "1.14.0"},                     // not 1.15.0-rc.1
				{">=2.0.0-alpha.1, <2.0.0", "2.0.0-alpha.1"},
			} {
				dir := filepath.Join(out, tt.tag)
				r := run(t, nil, "pull", repo, "--version", tt.rng, "-o", dir, "--key", key, "--format", "json")
				m := resolvedLine.FindStringSubmatch(r.err)
				if r.code != 0 || m == nil || m[1] != repo || m[2] != tt.tag {
					t.Fatalf("pull --version %q: want %s: %+v", tt.rng, tt.tag, r)
				}
				if !strings.Contains(r.out, `"version": "`+tt.tag+`"`) || !strings.Contains(r.out, `"digest": "`+m[3]+`"`) {
					t.Fatalf("pull --version %q pulled something else than %s@%s:\n%s", tt.rng, tt.tag, m[3], r.out)
				}
			}

			// Every other verb resolves the same range the same way.
			rng := ">=1.14.0, <2.0.0"
			for _, args := range [][]string{
				{"render", repo, "--key", key},
				{"render", repo, "--key", key, "--for", "flux"},
				{"inspect", repo},
				{"config", "schema", repo, "--key", key},
				{"config", "defaults", repo, "--key", key},
				{"diff", repo + ":1.14.0", repo, "--key", key},
				{"copy", repo, w.host + "/mirror/cert-manager", "--key", key},
				{"copy", repo, "--to-tarball", filepath.Join(out, "cm.tar"), "--key", key},
			} {
				r := run(t, nil, append(args, "--version", rng)...)
				m := resolvedLine.FindStringSubmatch(r.err)
				if r.code != 0 || m == nil || m[2] != "1.15.3" {
					t.Fatalf("%v --version %q: %+v", args, rng, r)
				}
				if args[0] == "render" && len(args) > 4 && !strings.Contains(r.out, m[3]) {
					t.Fatalf("render --for flux --version does not pin the digest %s:\n%s", m[3], r.out)
				}
			}
			// The copy kept the tag the range chose.
			if r := run(t, nil, "inspect", w.host+"/mirror/cert-manager:1.15.3"); r.code != 0 {
				t.Fatalf("the copy of a range is not tagged 1.15.3: %+v", r)
			}

			// Nothing matches: the range and the versions there are, exit 4.
			r := run(t, nil, "render", repo, "--version", ">=3.0.0", "--key", key)
			want := `addons/cert-manager: no version matches ">=3.0.0": available: 2.0.0, 2.0.0-alpha.1, 1.15.3, 1.15.0-rc.1, 1.14.0, 1.13.0`
			if r.code != commands.ExitNotFound || !strings.Contains(r.err, want) {
				t.Fatalf("no match: want exit 4 and %q: %+v", want, r)
			}

			// The binding rule holds for a resolved range: the old 1.13.0,
			// validly signed, re-tagged 1.16.0 by someone without the key.
			retag(t, w.host, "addons/cert-manager", "1.13.0", "1.16.0")
			r = run(t, nil, "pull", repo, "--version", "~1.16.0", "-o", filepath.Join(out, "retagged"), "--key", key)
			if r.code != commands.ExitVerify || !strings.Contains(r.err, "tag 1.16.0 claims version 1.16.0 but the signed add-on is cert-manager 1.13.0") {
				t.Fatalf("re-tagged old release: %+v", r)
			}
			if _, err := os.Stat(filepath.Join(out, "retagged")); !os.IsNotExist(err) {
				t.Fatalf("a refused pull left its directory: %v", err)
			}
		})
	}
}

// TestVersionRangeUsage: --version where it cannot apply is a usage error
// (exit 2) before any request.
func TestVersionRangeUsage(t *testing.T) {
	host := "localhost:1" // nothing listens: a request would exit 5
	repo := host + "/addons/hello"
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"pull", repo + ":0.1.0", "-o", "x"}, "a version range needs a repository without a tag or digest"},
		{[]string{"render", repo + "@sha256:" + strings.Repeat("a", 64)}, "a version range needs a repository without a tag or digest"},
		{[]string{"inspect", "./hello"}, "is a path"},
		{[]string{"render", repo, "--offline"}, "cannot be used with --offline"},
		{[]string{"render", "--stack", "addons.yaml"}, "--version cannot be used with --stack"},
		{[]string{"pull", "--stack", "addons.yaml", "-o", "x"}, "--version cannot be used with --stack"},
		{[]string{"copy", "--from-tarball", "x.tar", repo}, "--version cannot be used with --from-tarball"},
		{[]string{"diff", repo + ":0.1.0", "./hello"}, "none of"},
		{[]string{"config", "schema", repo}, "not a version range"},
	} {
		rng := "0.x"
		if tt.args[0] == "config" {
			rng = ">=1 <"
		}
		args := append(tt.args, "--version", rng)
		if tt.args[0] != "inspect" {
			args = append(args, "--insecure-skip-verify")
		}
		r := run(t, nil, args...)
		if r.code != commands.ExitUsage || !strings.Contains(r.err, tt.msg) {
			t.Errorf("%v: want exit 2 and %q: %+v", tt.args, tt.msg, r)
		}
	}
}
