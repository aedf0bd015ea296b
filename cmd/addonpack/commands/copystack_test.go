package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestCopyStackAirGap moves a locked stack through a tarball into a second
// registry — the embedded one and distribution 2.8 — where lock --check and
// render --stack verify every add-on by its digest under the scopes of its
// new repository.
func TestCopyStackAirGap(t *testing.T) {
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			w := newStackWorld(t, testregistry.New(t).Host())
			far := reg.host(t)
			file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n")
			if r := run(t, nil, "lock", file, "--policy", w.policy()); r.code != 0 {
				t.Fatalf("lock: %+v", r)
			}
			near, err := stack.ReadLock(stack.LockPath(file))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			tarball := filepath.Join(out, "stack.tar")

			// A stack whose dependency does not verify writes nothing.
			r := run(t, nil, "copy", "--stack", file, "--to-tarball", tarball, "--key", w.operatorKey+".pub")
			if r.code != commands.ExitVerify || !strings.Contains(r.err, "addons/cert-manager") {
				t.Fatalf("export with the wrong key: %+v", r)
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Fatalf("a failed export left %v", ents)
			}
			r = run(t, nil, "copy", "--stack", file, "--to-tarball", tarball, "--policy", w.policy())
			if r.code != 0 || r.out != "wrote "+tarball+"\n" || strings.Count(r.err, "copied ") != 2 {
				t.Fatalf("copy --stack --to-tarball: %+v", r)
			}

			// The other side trusts each add-on's key for its new repository.
			policy := filepath.Join(w.dir, "far-policy.yaml")
			body := "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: manager\n    path: manager.pub\n  - name: operator\n    path: operator.pub\nscopes:\n" +
				"  - prefix: " + far + "/airgap/cert-manager\n    keys: [manager]\n  - prefix: " + far + "/airgap/cert-operator\n    keys: [operator]\n"
			if err := os.WriteFile(policy, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			// A tarball that does not verify under the destination's
			// policy sets no tag and writes no file.
			refused := filepath.Join(t.TempDir(), "refused", "addons.yaml")
			r = run(t, nil, "copy", "--stack", refused, "--from-tarball", tarball, far+"/airgap", "--key", w.operatorKey+".pub")
			if r.code != commands.ExitVerify {
				t.Fatalf("import with the wrong key: %+v", r)
			}
			if _, err := os.Stat(filepath.Dir(refused)); !os.IsNotExist(err) {
				t.Fatalf("a refused import wrote %s: %v", filepath.Dir(refused), err)
			}
			if r := run(t, nil, "inspect", far+"/airgap/cert-operator:0.2.0"); r.code != commands.ExitNotFound {
				t.Fatalf("a refused import left a tag: %+v", r)
			}

			farFile := filepath.Join(t.TempDir(), "site", "addons.yaml")
			r = run(t, nil, "copy", "--stack", farFile, "--from-tarball", tarball, far+"/airgap", "--policy", policy)
			if r.code != 0 || !strings.Contains(r.out, "wrote "+farFile+" and "+stack.LockPath(farFile)) {
				t.Fatalf("copy --stack --from-tarball: %+v", r)
			}
			moved, err := stack.ReadLock(stack.LockPath(farFile))
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range moved.Addons {
				if a.Repository != far+"/airgap/"+a.Name || a.Digest != near.Addons[i].Digest || a.Tag != near.Addons[i].Tag {
					t.Fatalf("moved lock entry %+v, near %+v", a, near.Addons[i])
				}
			}
			if got := mustRead(t, farFile); !strings.Contains(got, "repository: "+far+"/airgap/cert-operator\n    version: '>=0.1.0, <1.0.0'") {
				t.Fatalf("rewritten stack file:\n%s", got)
			}

			// The other side works against its own registry.
			if r := run(t, nil, "lock", farFile, "--check"); r.code != 0 {
				t.Fatalf("lock --check on the other side: %+v", r)
			}
			r = run(t, nil, "render", "--stack", farFile, "--policy", policy)
			if r.code != 0 || !strings.Contains(r.out, "cert-manager") || !strings.Contains(r.out, "cert-operator") {
				t.Fatalf("render --stack on the other side: %+v", r)
			}
			// ... verifying each add-on there: under the near side's policy,
			// whose scopes name other repositories, nothing is trusted.
			if r := run(t, nil, "render", "--stack", farFile, "--policy", w.policy()); r.code != commands.ExitVerify {
				t.Fatalf("render --stack under a policy for other repositories: %+v", r)
			}
			// The stack file and its lock are never overwritten.
			if r := run(t, nil, "copy", "--stack", farFile, "--from-tarball", tarball, far+"/airgap", "--policy", policy); r.code != commands.ExitConflict {
				t.Fatalf("import over an existing stack file: %+v", r)
			}
		})
	}
}

func TestCopyStackUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"copy", "--stack", "addons.yaml", "localhost:1/a/b"}, "give --to-tarball OUT, or --from-tarball IN and DST"},
		{[]string{"copy", "--stack", "addons.yaml", "--to-tarball", "x.tar", "localhost:1/a/b"}, "takes no argument"},
		{[]string{"copy", "--stack", "addons.yaml", "--from-tarball", "x.tar"}, "takes one argument, DST"},
		{[]string{"copy", "--stack", "addons.yaml", "--to-tarball", "x.tar", "--name", "x", "--insecure-skip-verify"}, "--name cannot be used with --stack"},
		{[]string{"copy", "--stack", "addons.yaml", "--to-tarball", "x.tar", "--version", "1.x", "--insecure-skip-verify"}, "--version cannot be used with --stack"},
	} {
		r := run(t, nil, tt.args...)
		if r.code != commands.ExitUsage || !strings.Contains(r.err, tt.msg) {
			t.Errorf("%v: want exit 2 and %q: %+v", tt.args, tt.msg, r)
		}
	}
}
