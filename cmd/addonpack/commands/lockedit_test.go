package commands_test

import (
	"archive/tar"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestLockEdits: hand edits of a committed addons.lock, against real signed
// add-ons in the embedded registry, each refused by every reader of the lock
// with its documented code and a message naming the entry, and nothing
// written (specs/stack.md section 4.5).
func TestLockEdits(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	attacker := w.keygen("attacker")
	// The attacker's own cert-manager and an add-on nobody needs, in a
	// repository whose scope trusts the attacker's key.
	_, evilManager := w.publishTo(w.host+"/evil/cert-manager:1.15.3", "cert-manager", "1.15.3", attacker, nil)
	_, evilAddon := w.publishTo(w.host+"/evil/evil:1.0.0", "evil", "1.0.0", attacker, nil)
	// Another add-on signed by cert-manager's key, in cert-manager's
	// repository under a tag that is no version.
	_, crds := w.publishTo(w.host+"/addons/cert-manager:crds", "cert-manager-crds", "1.15.3", w.managerKey, []string{"--name", "cert-manager-crds"})
	policy := filepath.Join(w.dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - {name: manager, path: manager.pub}
  - {name: operator, path: operator.pub}
  - {name: attacker, path: attacker.pub}
scopes:
  - {prefix: `+w.host+`/addons/cert-manager, keys: [manager]}
  - {prefix: `+w.host+`/addons/cert-operator, keys: [operator]}
  - {prefix: `+w.host+`/evil, keys: [attacker]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n")
	lockPath := stack.LockPath(file)
	if r := run(t, nil, "lock", file, "--policy", policy); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	resolved, err := stack.ReadLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	older := w.resolve("cert-manager:1.14.0") // a validly signed older release
	extra := func(name, repo string, d digest.Digest, by, rng string) stack.LockedAddon {
		return stack.LockedAddon{Name: name, Repository: w.host + repo, Version: "1.0.0", Tag: "1.0.0", Digest: d,
			RequiredBy: []stack.Requirement{{By: by, Version: rng}}}
	}
	const (
		invalid = commands.ExitInvalid
		drift   = commands.ExitDrift
		claim   = commands.ExitVerify
	)
	tests := []struct {
		name string
		edit func(l *stack.Lock)
		// exit codes of lock --check without and with trust, render
		// --stack and pull --stack; and what each says
		check, checkTrust, render int
		// msg is what lock --check says, renderMsg ("" : msg) what the
		// consumers say, trustMsg ("" : msg) what lock --check given trust
		// says when it differs
		msg, renderMsg, trustMsg string
	}{
		{"a second cert-manager in the attacker's repository, required by the stack", func(l *stack.Lock) {
			a := extra("cert-manager", "/evil/cert-manager", digest.Digest(evilManager), "stack", "*")
			a.Version, a.Tag = "1.15.3", "1.15.3"
			l.Addons = append(l.Addons, a)
		}, invalid, invalid, invalid, "cert-manager: invalid lock: listed twice (addons[0] in " + w.host + "/addons/cert-manager, addons[2] in " + w.host + "/evil/cert-manager)", "", ""},
		{"a second cert-manager in the attacker's repository, required by cert-operator", func(l *stack.Lock) {
			a := extra("cert-manager", "/evil/cert-manager", digest.Digest(evilManager), "cert-operator@0.2.0", ">=1.14.0, <2.0.0")
			a.Version, a.Tag = "1.15.3", "1.15.3"
			l.Addons = slices.Insert(l.Addons, 1, a)
		}, invalid, invalid, invalid, "cert-manager: invalid lock: listed twice", "", ""},
		{"an add-on the stack file never names, as a root", func(l *stack.Lock) {
			l.Addons = append(l.Addons, extra("evil", "/evil/evil", digest.Digest(evilAddon), "stack", "*"))
			l.Order = []string{"cert-manager", "cert-operator", "evil"}
		}, drift, drift, drift, "evil: locked as a root, no longer in the stack file", "", ""},
		{"an add-on smuggled in as cert-operator's dependency", func(l *stack.Lock) {
			l.Addons = append(l.Addons, extra("evil", "/evil/evil", digest.Digest(evilAddon), "cert-operator@0.2.0", "*"))
			l.Order = []string{"cert-manager", "evil", "cert-operator"}
		}, 0, invalid, invalid, "", `evil: invalid lock: the lock says cert-operator@0.2.0 requires it ("*"), but cert-operator's signed config does not`,
			`evil: invalid lock: the lock says cert-operator@0.2.0 requires it ("*"), but cert-operator's signed config does not`},
		{"cert-manager's digest swapped to an older signed release, version and tag kept", func(l *stack.Lock) {
			l.Addons[0].Digest = older
		}, drift, drift, invalid, "cert-manager: tag 1.15.3 now ",
			"cert-manager: invalid lock: locked as cert-manager 1.15.3, but the signed add-on at " + w.host + "/addons/cert-manager@" + older.String() + " is cert-manager 1.14.0", ""},
		{"cert-manager's digest swapped to an older signed release, tag dropped", func(l *stack.Lock) {
			l.Addons[0].Digest, l.Addons[0].Tag = older, ""
		}, invalid, invalid, invalid, "cert-manager: invalid lock: no tag, and no digest of the stack file pins it", "", ""},
		{"cert-manager's version set back to the older release's, tag kept", func(l *stack.Lock) {
			l.Addons[0].Digest, l.Addons[0].Version = older, "1.14.0"
		}, invalid, invalid, invalid, "cert-manager: invalid lock: tag 1.15.3 does not claim version 1.14.0", "", ""},
		{"cert-manager's digest swapped to another add-on signed by the same key", func(l *stack.Lock) {
			l.Addons[0].Digest = digest.Digest(crds)
		}, drift, drift, claim, "cert-manager: tag 1.15.3 now ",
			`add-on "cert-manager" was expected but the signed add-on is cert-manager-crds 1.15.3`, ""},
		{"order lists cert-operator twice", func(l *stack.Lock) {
			l.Order = append(l.Order, "cert-operator")
		}, invalid, invalid, invalid, "order[2]: invalid lock: cert-operator is listed twice", "", ""},
		{"order misses cert-operator", func(l *stack.Lock) {
			l.Order = l.Order[:1]
		}, invalid, invalid, invalid, "order: invalid lock: cert-operator is missing", "", ""},
		{"order names an add-on the lock does not hold", func(l *stack.Lock) {
			l.Order = append(l.Order, "evil")
		}, invalid, invalid, invalid, `order[2]: invalid lock: "evil" is not an add-on of the lock`, "", ""},
		{"order puts cert-operator before the cert-manager it requires", func(l *stack.Lock) {
			l.Order = []string{"cert-operator", "cert-manager"}
		}, invalid, invalid, invalid, "order[0]: invalid lock: cert-operator comes before cert-manager, which it requires", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := *resolved
			edited.Addons = slices.Clone(resolved.Addons)
			edited.Order = slices.Clone(resolved.Order)
			tt.edit(&edited)
			b, err := edited.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(lockPath, b, 0o644); err != nil {
				t.Fatal(err)
			}
			renderMsg, trustMsg := tt.renderMsg, tt.trustMsg
			if renderMsg == "" {
				renderMsg = tt.msg
			}
			if trustMsg == "" {
				trustMsg = tt.msg
			}
			out := filepath.Join(t.TempDir(), "out")
			for _, c := range []struct {
				args []string
				code int
				msg  string
			}{
				{[]string{"lock", file, "--check"}, tt.check, tt.msg},
				{[]string{"lock", file, "--check", "--policy", policy}, tt.checkTrust, trustMsg},
				{[]string{"render", "--stack", file, "--policy", policy}, tt.render, renderMsg},
				{[]string{"render", "--stack", file, "--policy", policy, "--format", "kustomize", "-o", out}, tt.render, renderMsg},
				{[]string{"render", "--stack", file, "--policy", policy, "--for", "flux"}, tt.render, renderMsg},
				{[]string{"pull", "--stack", file, "--policy", policy, "-o", out}, tt.render, renderMsg},
			} {
				if c.args[0] == "lock" && c.code == 0 { // lock --check without trust verifies nothing
					if r := run(t, nil, c.args...); r.code != 0 {
						t.Errorf("%s: %+v, want 0: only the signed config tells", strings.Join(c.args, " "), r)
					}
					continue
				}
				r := run(t, nil, c.args...)
				if r.code != c.code || !strings.Contains(r.err, c.msg) {
					t.Errorf("%s: exit %d, want %d saying %q\n%s", strings.Join(c.args, " "), r.code, c.code, c.msg, r.err)
				}
				if c.args[0] == "render" && c.args[len(c.args)-1] == policy && r.out != "" {
					t.Errorf("%s printed a partial stream:\n%s", strings.Join(c.args, " "), r.out)
				}
				if _, err := os.Lstat(out); !os.IsNotExist(err) {
					t.Fatalf("%s wrote %s: %v", strings.Join(c.args, " "), out, err)
				}
			}
			if after, _ := os.ReadFile(lockPath); string(after) != string(b) {
				t.Errorf("the lock was rewritten")
			}
		})
	}
}

// resolve returns the digest a tag of host/addons points at.
func (w *stackWorld) resolve(repoTag string) digest.Digest {
	w.t.Helper()
	r := run(w.t, nil, "inspect", w.host+"/addons/"+repoTag, "--format", "json")
	d := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(r.out)
	if r.code != 0 || d == "" {
		w.t.Fatalf("inspect %s: %+v", repoTag, r)
	}
	return digest.Digest(d)
}

// TestCopyStackLockEdits: copy --stack refuses an edited lock on export,
// writing no tarball, and a stack tarball whose lock was edited on import,
// setting no tag and writing no file.
func TestCopyStackLockEdits(t *testing.T) {
	w := newStackWorld(t, testregistry.New(t).Host())
	file := w.stackFile("  - repository: HOST/addons/cert-operator\n    version: \">=0.1.0, <1.0.0\"\n")
	policy := w.policy()
	if r := run(t, nil, "lock", file, "--policy", policy); r.code != 0 {
		t.Fatalf("lock: %+v", r)
	}
	lockPath := stack.LockPath(file)
	good := mustRead(t, lockPath)
	tarball := filepath.Join(t.TempDir(), "stack.tar")
	if r := run(t, nil, "copy", "--stack", file, "--to-tarball", tarball, "--policy", policy); r.code != 0 {
		t.Fatalf("copy --stack --to-tarball: %+v", r)
	}
	manager := "  - name: cert-manager\n"
	tests := []struct {
		name, from, to string
		code           int
		msg            string
	}{
		{"a second cert-manager in another repository", manager, manager + "    repository: " + w.host + "/evil/cert-manager\n    version: 1.15.3\n    tag: 1.15.3\n    digest: sha256:" + strings.Repeat("0", 64) + "\n    level: 0\n    requiredBy:\n      - by: stack\n        version: '*'\n" + manager,
			commands.ExitInvalid, "cert-manager: invalid lock: listed twice"},
		{"an add-on the stack file never names", "order:\n  - cert-manager\n  - cert-operator\n", "  - name: evil\n    repository: " + w.host + "/evil/evil\n    version: 1.0.0\n    tag: 1.0.0\n    digest: sha256:" + strings.Repeat("0", 64) + "\n    level: 0\n    requiredBy:\n      - by: stack\n        version: '*'\norder:\n  - cert-manager\n  - cert-operator\n  - evil\n",
			commands.ExitDrift, "evil: locked as a root, no longer in the stack file"},
		{"order lists cert-manager twice", "order:\n", "order:\n  - cert-manager\n", commands.ExitInvalid, "order[1]: invalid lock: cert-manager is listed twice"},
		{"order in reverse", "  - cert-manager\n  - cert-operator\n", "  - cert-operator\n  - cert-manager\n", commands.ExitInvalid, "order[0]: invalid lock: cert-operator comes before cert-manager"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := strings.Replace(good, tt.from, tt.to, 1)
			if edited == good {
				t.Fatal("the edit changed nothing")
			}
			// Export.
			if err := os.WriteFile(lockPath, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.tar")
			r := run(t, nil, "copy", "--stack", file, "--to-tarball", out, "--policy", policy)
			if r.code != tt.code || !strings.Contains(r.err, tt.msg) {
				t.Errorf("export: exit %d, want %d saying %q\n%s", r.code, tt.code, tt.msg, r.err)
			}
			if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 0 {
				t.Errorf("a refused export left %v", ents)
			}
			// Import of the good tarball with the edited lock inside.
			in := filepath.Join(t.TempDir(), "edited.tar")
			replaceTarFile(t, tarball, in, stack.LockName, []byte(edited))
			site := filepath.Join(t.TempDir(), "site", "addons.yaml")
			r = run(t, nil, "copy", "--stack", site, "--from-tarball", in, w.host+"/airgap", "--policy", policy)
			if r.code != tt.code || !strings.Contains(r.err, tt.msg) {
				t.Errorf("import: exit %d, want %d saying %q\n%s", r.code, tt.code, tt.msg, r.err)
			}
			if _, err := os.Stat(filepath.Dir(site)); !os.IsNotExist(err) {
				t.Errorf("a refused import wrote %s: %v", filepath.Dir(site), err)
			}
			if r := run(t, nil, "inspect", w.host+"/airgap/cert-operator:0.2.0"); r.code != commands.ExitNotFound {
				t.Errorf("a refused import left a tag: %+v", r)
			}
		})
	}
	if err := os.WriteFile(lockPath, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceTarFile copies the tarball src to dst with the content of the
// entry name replaced.
func replaceTarFile(t *testing.T, src, dst, name string, content []byte) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	tr, tw := tar.NewReader(in), tar.NewWriter(out)
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if path.Clean(h.Name) == name {
			body, found = content, true
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil || !found {
		t.Fatalf("%s in %s: found %v, %v", name, src, found, err)
	}
}
