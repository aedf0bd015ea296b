package commands_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// retag is an attacker with push access and no key: it points tag of repo at
// the manifest that from (a tag or digest of the same repository) names,
// through the distribution API, bypassing addonpack.
func retag(t *testing.T, host, repo, from, tag string) {
	t.Helper()
	const mt = "application/vnd.oci.image.manifest.v1+json"
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/v2/"+repo+"/manifests/"+from, nil)
	req.Header.Set("Accept", mt)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s@%s: %s", repo, from, resp.Status)
	}
	req, _ = http.NewRequest(http.MethodPut, "http://"+host+"/v2/"+repo+"/manifests/"+tag, bytes.NewReader(body))
	req.Header.Set("Content-Type", mt)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT %s:%s: %s", repo, tag, resp.Status)
	}
}

// newAddon scaffolds an add-on named name at version in dir.
func newAddon(t *testing.T, dir, name, version string) string {
	t.Helper()
	src := filepath.Join(dir, name+"-"+version)
	if r := run(t, nil, "init", src, "--name", name); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	file := filepath.Join(src, "addon.yaml")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(b, []byte("version: 0.1.0"), []byte("version: "+version), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestReferenceBinding: signatures cover digests, not names (issue 17 item
// 1). Every consumer verb refuses a validly signed add-on that is not the
// one its reference names, with both sides in the message and exit code 9;
// push and copy refuse such destinations up front.
func TestReferenceBinding(t *testing.T) {
	host := testregistry.New(t).Host()
	dir := t.TempDir()
	key := filepath.Join(dir, "release")
	if r := run(t, signEnv, "keygen", "--output-key-prefix", key); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	pub := key + ".pub"
	push := func(src, ref string, extra ...string) result {
		t.Helper()
		return run(t, signEnv, append([]string{"push", src, ref, "--key", key + ".key"}, extra...)...)
	}
	for _, p := range []struct{ name, version, ref string }{
		{"hello", "0.1.0", "addons/hello:0.1.0"},
		{"other", "6.6.6", "addons/other:6.6.6"},
		{"hello", "0.3.0+build.7", "addons/hello:0.3.0_build.7"},
	} {
		if r := push(newAddon(t, dir, p.name, p.version), host+"/"+p.ref); r.code != 0 {
			t.Fatalf("push %s: %+v", p.ref, r)
		}
	}
	// The attacker: other's artifact into hello's repository (allowed:
	// --name says what it is), then hello's tag pointed at it; and hello
	// 0.1.0 re-tagged as 0.2.0; and a latest tag.
	if r := run(t, nil, "copy", host+"/addons/other:6.6.6", host+"/addons/hello", "--name", "other", "--insecure-skip-verify"); r.code != 0 {
		t.Fatalf("copy other into hello's repository under its own version: %+v", r)
	}
	retag(t, host, "addons/hello", "0.1.0", "0.2.0")
	retag(t, host, "addons/hello", "0.1.0", "latest")
	retag(t, host, "addons/hello", "6.6.6", "0.1.0")

	refuse := func(args []string, want ...string) {
		t.Helper()
		r := run(t, nil, args...)
		if r.code != commands.ExitVerify {
			t.Fatalf("%v: exit %d, want %d: %+v", args, r.code, commands.ExitVerify, r)
		}
		for _, w := range want {
			if !strings.Contains(r.err, w) {
				t.Errorf("%v: stderr does not say %q: %s", args, w, r.err)
			}
		}
	}
	accept := func(args ...string) result {
		t.Helper()
		r := run(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		return r
	}
	consumers := func(ref string, trust ...string) [][]string {
		out := filepath.Join(t.TempDir(), "out")
		return [][]string{
			append([]string{"pull", ref, "-o", out}, trust...),
			append([]string{"render", ref}, trust...),
			append([]string{"config", "schema", ref}, trust...),
			append([]string{"config", "defaults", ref}, trust...),
			append([]string{"diff", ref, ref}, trust...),
			append([]string{"verify", ref}, trust...),
			append([]string{"verify", ref, host + "/addons/other:6.6.6"}, trust...),
		}
	}

	t.Run("another add-on under this tag", func(t *testing.T) {
		for _, args := range consumers(host+"/addons/hello:0.1.0", "--key", pub, "--require-provenance") {
			refuse(args, `names add-on "hello"`, "other 6.6.6")
		}
		// Naming the add-on does not make its version 0.1.0.
		refuse([]string{"pull", host + "/addons/hello:0.1.0", "-o", filepath.Join(t.TempDir(), "o"), "--key", pub, "--name", "other"},
			"tag 0.1.0 claims version 0.1.0", "other 6.6.6")
		// Unverified, the same.
		refuse([]string{"render", host + "/addons/hello:0.1.0", "--insecure-skip-verify"}, "other 6.6.6")
		// inspect verifies nothing: it shows what is there, and warns.
		if r := accept("inspect", host+"/addons/hello:0.1.0"); !strings.Contains(r.err, "Warning") || !strings.Contains(r.err, "other 6.6.6") {
			t.Fatalf("inspect does not warn: %+v", r)
		}
	})
	t.Run("older signed release re-tagged as newer", func(t *testing.T) {
		for _, args := range consumers(host+"/addons/hello:0.2.0", "--key", pub) {
			refuse(args, "tag 0.2.0 claims version 0.2.0", "hello 0.1.0")
		}
	})
	t.Run("latest and digests claim no version", func(t *testing.T) {
		accept("render", host+"/addons/hello:latest", "--key", pub)
		p := accept("push", newAddon(t, t.TempDir(), "hello", "0.1.0"), host+"/addons/hello:stable")
		digest := strings.TrimSpace(p.out[strings.Index(p.out, "@")+1:])
		accept("render", host+"/addons/hello@"+digest, "--key", pub)
		accept("copy", host+"/addons/hello@"+digest, host+"/mirror/hello", "--insecure-skip-verify")
		// A digest reference still claims the name: other's digest in
		// hello's repository is refused.
		var info struct{ Digest string }
		if err := json.Unmarshal([]byte(accept("inspect", host+"/addons/other:6.6.6", "--format", "json").out), &info); err != nil {
			t.Fatal(err)
		}
		refuse([]string{"render", host + "/addons/hello@" + info.Digest, "--key", pub}, `names add-on "hello"`, "other 6.6.6")
	})
	t.Run("build metadata as _", func(t *testing.T) {
		accept("pull", host+"/addons/hello:0.3.0_build.7", "-o", filepath.Join(t.TempDir(), "o"), "--key", pub)
		refuse([]string{"push", newAddon(t, t.TempDir(), "hello", "0.3.0+build.7"), host + "/addons/hello:0.3.0"},
			"tag 0.3.0 claims version 0.3.0", "hello 0.3.0+build.7")
		refuse([]string{"push", newAddon(t, t.TempDir(), "hello", "0.3.0+build.7"), host + "/addons/hello:0.3.0_build.8"},
			"claims version 0.3.0+build.8")
	})
	t.Run("push refuses what consumers would", func(t *testing.T) {
		refuse([]string{"push", newAddon(t, t.TempDir(), "hello", "0.4.0"), host + "/addons/other:0.4.0"}, `names add-on "other"`, "hello 0.4.0")
		refuse([]string{"push", newAddon(t, t.TempDir(), "hello", "0.4.0"), host + "/addons/hello:0.5.0"}, "tag 0.5.0 claims version 0.5.0")
		// Nothing was written: neither tag exists.
		for _, ref := range []string{host + "/addons/other:0.4.0", host + "/addons/hello:0.5.0"} {
			if r := run(t, nil, "inspect", ref); r.code != commands.ExitNotFound {
				t.Fatalf("inspect %s after a refused push: %+v", ref, r)
			}
		}
	})
	t.Run("copy refuses what consumers would", func(t *testing.T) {
		refuse([]string{"copy", host + "/addons/other:6.6.6", host + "/addons/hello", "--insecure-skip-verify"}, `names add-on "hello"`, "other 6.6.6")
		refuse([]string{"copy", host + "/addons/hello:0.3.0_build.7", host + "/addons/hello:0.9.0", "--key", pub}, "tag 0.9.0 claims version 0.9.0")
		refuse([]string{"copy", host + "/addons/hello:0.2.0", host + "/mirror/hello", "--key", pub}, "tag 0.2.0 claims version 0.2.0")
		if r := run(t, nil, "inspect", host+"/addons/hello:0.9.0"); r.code != commands.ExitNotFound {
			t.Fatalf("a refused copy left a tag: %+v", r)
		}
		tarball := filepath.Join(t.TempDir(), "hello.tar")
		accept("copy", host+"/addons/hello:0.3.0_build.7", "--to-tarball", tarball, "--key", pub)
		refuse([]string{"copy", "--from-tarball", tarball, host + "/addons/other", "--key", pub}, `names add-on "other"`)
		refuse([]string{"copy", "--from-tarball", tarball, host + "/addons/hello:1.0.0", "--key", pub}, "claims version 1.0.0")
	})
	t.Run("a mirror that renames", func(t *testing.T) {
		mirror := host + "/vendor/hello-addon"
		refuse([]string{"copy", host + "/addons/hello:0.3.0_build.7", mirror, "--key", pub}, `names add-on "hello-addon"`, "--name")
		accept("copy", host+"/addons/hello:0.3.0_build.7", mirror, "--key", pub, "--name", "hello")
		ref := mirror + ":0.3.0_build.7"
		refuse([]string{"render", ref, "--key", pub}, `names add-on "hello-addon"`, "hello 0.3.0+build.7")
		accept("render", ref, "--key", pub, "--name", "hello")
		accept("verify", ref, "--key", pub, "--name", "hello")
		policy := filepath.Join(dir, "policy.yaml")
		if err := os.WriteFile(policy, []byte(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - name: release
    path: release.pub
scopes:
  - keys: [release]
names:
  - repository: `+strings.ToUpper(mirror[:1])+mirror[1:]+`
    name: hello
`), 0o644); err != nil {
			t.Fatal(err)
		}
		accept("render", ref, "--policy", policy)
		accept("pull", ref, "-o", filepath.Join(t.TempDir(), "o"), "--policy", policy)
		// The mapping is for the mirror only: hello's own repository still
		// refuses the other add-on.
		refuse([]string{"render", host + "/addons/hello:0.1.0", "--policy", policy}, "other 6.6.6")
	})
}
