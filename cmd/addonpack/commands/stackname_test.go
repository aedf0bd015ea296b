package commands_test

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestStackEntryName: a stack entry's name is the add-on a repository named
// otherwise must hold (a mirror that renames, specs/stack.md section 4
// item 2); without it, or with another name, the signed add-on is refused
// (the name claim, specs/artifact.md section 11.6).
func TestStackEntryName(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	key := w.managerKey + ".pub"
	// A mirror that renames: cert-manager's 1.15.3 in mirror/cm.
	if r := run(t, nil, "copy", w.host+"/addons/cert-manager:1.15.3", w.host+"/mirror/cm", "--name", "cert-manager", "--key", key); r.code != 0 {
		t.Fatalf("copy to a renaming mirror: %+v", r)
	}

	file := w.stackFile("  - name: cert-manager\n    repository: HOST/mirror/cm\n    version: \"^1.15.0\"\n")
	if r := run(t, nil, "lock", file, "--key", key); r.code != 0 || !strings.Contains(r.out, "cert-manager             1.15.3       "+w.host+"/mirror/cm@sha256:") {
		t.Fatalf("lock with a renaming entry: %+v", r)
	}
	l, err := stack.ReadLock(stack.LockPath(file))
	if err != nil || len(l.Addons) != 1 || l.Addons[0].Name != "cert-manager" || l.Addons[0].Repository != w.host+"/mirror/cm" {
		t.Fatalf("lock: %+v %v", l, err)
	}
	// Its consumers bind the locked digest to the same name.
	if r := run(t, nil, "render", "--stack", file, "--key", key); r.code != 0 || !strings.Contains(r.out, "kind: ") {
		t.Fatalf("render --stack with a renaming entry: %+v", r)
	}
	if r := run(t, nil, "lock", file, "--check"); r.code != 0 {
		t.Fatalf("lock --check with a renaming entry: %+v", r)
	}

	for _, tt := range []struct {
		entry, want string
	}{
		// No name: the repository's last element, cm, is expected.
		{"  - repository: HOST/mirror/cm\n    version: \"^1.15.0\"\n",
			`mirror/cm:1.15.3: add-on "cm" was expected but the signed add-on is cert-manager 1.15.3`},
		// Another name than the signed one.
		{"  - name: cert-operator\n    repository: HOST/mirror/cm\n    version: \"^1.15.0\"\n",
			`add-on "cert-operator" was expected but the signed add-on is cert-manager 1.15.3`},
		// A name on the add-on's own repository must be its name too.
		{"  - name: manager\n    repository: HOST/addons/cert-manager\n    version: \"^1.15.0\"\n",
			`add-on "manager" was expected but the signed add-on is cert-manager 1.15.3`},
	} {
		file := w.stackFile(tt.entry)
		r := run(t, nil, "lock", file, "--key", key)
		if r.code != commands.ExitVerify || !strings.Contains(r.err, tt.want) {
			t.Errorf("lock %q: want exit 9 and %q: %+v", tt.entry, tt.want, r)
		}
	}
}
