package commands_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/testregistry"
)

// publishVersions pushes the scaffolded add-on "hello" once per version, each
// built with that version in addon.yaml, under its version tag ("+" as "_";
// "v1.2.3" is version 1.2.3 under the tag v1.2.3).
func publishVersions(t *testing.T, host string, versions ...string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "hello")
	if r := run(t, nil, "init", src); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	addon := filepath.Join(src, "addon.yaml")
	orig, err := os.ReadFile(addon)
	if err != nil {
		t.Fatal(err)
	}
	for _, tagged := range versions {
		// "v1.2.3" is published as version 1.2.3 under the tag v1.2.3.
		v := strings.TrimPrefix(tagged, "v")
		b := strings.Replace(string(orig), "version: 0.1.0", "version: "+v, 1)
		if err := os.WriteFile(addon, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := host + "/addons/hello:" + strings.ReplaceAll(tagged, "+", "_")
		if r := run(t, nil, "push", src, ref); r.code != 0 {
			t.Fatalf("push %s: %+v", ref, r)
		}
	}
}

func TestVersions(t *testing.T) {
	reg := testregistry.New(t)
	publishVersions(t, reg.Host(), "2.0.0", "1.13.0", "1.15.0-rc.1", "1.14.0", "2.0.0-alpha.1", "1.15.3")
	repo := reg.Host() + "/addons/hello"

	r := run(t, nil, "versions", repo)
	if want := "1.13.0\n1.14.0\n1.15.0-rc.1\n1.15.3\n2.0.0-alpha.1\n2.0.0\n"; r.code != 0 || r.out != want {
		t.Fatalf("versions = %+v, want\n%s", r, want)
	}
	r = run(t, nil, "versions", repo, "--version", ">=1.14.0, <2.0.0", "--format", "json")
	var got struct {
		Repository, Range string
		Versions          []struct{ Tag, Version string }
	}
	if err := json.Unmarshal([]byte(r.out), &got); err != nil || r.code != 0 {
		t.Fatalf("versions -o json: %v %+v", err, r)
	}
	if got.Repository != repo || got.Range != ">=1.14.0, <2.0.0" || len(got.Versions) != 2 ||
		got.Versions[0].Tag != "1.14.0" || got.Versions[1].Version != "1.15.3" {
		t.Fatalf("versions -o json = %+v", got)
	}

	// A "v" tag is ignored, with a warning where the range would match it.
	publishVersions(t, reg.Host(), "v1.16.0")
	r = run(t, nil, "versions", repo, "--version", ">=1.15.0")
	if r.code != 0 || r.out != "1.15.3\n2.0.0\n" || !strings.Contains(r.err, "ignoring tag v1.16.0: not a strict semantic version (write 1.16.0)") {
		t.Fatalf("versions with a v tag: %+v", r)
	}

	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"versions", repo + ":1.13.0"}, 2, "without a tag or digest"},
		{[]string{"versions", repo, "--version", ">=1.2.3 <"}, 2, "not a version range"},
		{[]string{"versions", reg.Host() + "/addons/nothing"}, 4, reg.Host() + "/addons/nothing"},
	} {
		r := run(t, nil, tt.args...)
		if r.code != tt.code || !strings.Contains(r.err, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.err, tt.code, tt.msg)
		}
	}
}
