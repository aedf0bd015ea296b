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

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/testregistry"
)

// pushVersions publishes examples-like add-on hello at each version to
// host/addons/hello, signed with a fresh key; it returns the public key path.
func pushVersions(t *testing.T, host string, versions ...string) string {
	t.Helper()
	dir := t.TempDir()
	hello := filepath.Join(dir, "hello")
	run(t, nil, "init", hello)
	key := filepath.Join(dir, "release")
	if r := run(t, signEnv, "keygen", "--output-key-prefix", key); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	for _, v := range versions {
		a, _ := os.ReadFile(filepath.Join(hello, "addon.yaml"))
		a = bytes.Replace(a, []byte("version: 0.1.0"), []byte("version: "+v), 1)
		src := filepath.Join(dir, v)
		if err := os.CopyFS(src, os.DirFS(hello)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, "addon.yaml"), a, 0o644)
		// The classic tags: prune keeps and deletes cosign v2's .sig/.att tags here.
		if r := run(t, signEnv, "push", src, host+"/addons/hello:"+v, "--key", key+".key", "--signature-format", "classic"); r.code != 0 {
			t.Fatalf("push %s: %+v", v, r)
		}
	}
	return key + ".pub"
}

func TestPrune(t *testing.T) {
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			pub := pushVersions(t, host, "0.1.0", "0.2.0")
			repo := host + "/addons/hello"

			dry := run(t, nil, "prune", repo, "--keep", "1")
			if dry.code != 0 || !strings.Contains(dry.out, "dry run: nothing deleted") || !strings.Contains(dry.out, "release") {
				t.Fatalf("dry run: %+v", dry)
			}
			var out struct {
				DryRun bool
				Plan   struct {
					Delete []struct{ Kind, Release string }
				}
			}
			j := run(t, nil, "prune", repo, "--keep", "1", "--format", "json")
			if err := json.Unmarshal([]byte(j.out), &out); err != nil || j.code != 0 || !out.DryRun || len(out.Plan.Delete) < 3 {
				t.Fatalf("-o json: %v %+v", err, j)
			}
			for _, it := range out.Plan.Delete {
				if it.Release != "0.1.0" {
					t.Errorf("plan deletes %+v, not of 0.1.0", it)
				}
			}
			if v := run(t, nil, "verify", repo+":0.1.0", "--key", pub); v.code != 0 {
				t.Fatalf("a dry run deleted something: %+v", v)
			}

			y := run(t, nil, "prune", repo, "--keep", "1", "--yes")
			if y.code != 0 || !strings.Contains(y.out, "deleted release") {
				t.Fatalf("--yes: %+v", y)
			}
			if v := run(t, nil, "verify", repo+":0.1.0", "--key", pub); v.code != 4 {
				t.Errorf("0.1.0 after prune: exit %d, want 4 (not found): %+v", v.code, v)
			}
			if v := run(t, nil, "verify", repo+":0.2.0", "--key", pub); v.code != 0 {
				t.Errorf("kept 0.2.0 no longer verifies: %+v", v)
			}
			if again := run(t, nil, "prune", repo, "--keep", "1", "--format", "json"); !strings.Contains(again.out, `"delete": []`) {
				t.Errorf("second run: %+v", again)
			}
		})
	}
}

func TestPruneRefusals(t *testing.T) {
	reg := testregistry.New(t, testregistry.WithoutDeletes())
	pushVersions(t, reg.Host(), "0.1.0", "0.2.0")
	repo := reg.Host() + "/addons/hello"
	bad := filepath.Join(t.TempDir(), "pins.txt")
	os.WriteFile(bad, []byte("hello:0.1.0\n"), 0o644)
	badLock := filepath.Join(t.TempDir(), "addons.lock")
	os.WriteFile(badLock, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: StackLock\naddons: 3\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no keep rule", []string{repo}, 2, "say what to keep"},
		{"a tag, not a repository", []string{repo + ":0.1.0", "--keep", "1"}, 2, "takes a repository"},
		{"bad range", []string{repo, "--keep-range", ">>1"}, 2, "--keep-range"},
		{"unknown tag", []string{repo, "--tag", "nope"}, 4, "nope"},
		{"bad protect file", []string{repo, "--keep", "1", "--protect", bad}, 3, `"hello:0.1.0" is not a digest`},
		{"bad lock file", []string{repo, "--keep", "1", "--protect", badLock}, 3, "invalid stack"},
		{"registry without deletes", []string{repo, "--keep", "1", "--yes"}, 1, "does not allow deletes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, nil, append([]string{"prune"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.err, tc.msg) {
				t.Errorf("exit %d, want %d with %q: %+v", r.code, tc.code, tc.msg, r)
			}
		})
	}
	if r := run(t, nil, "prune", repo, "--keep", "1", "--format", "json"); !strings.Contains(r.out, `"0.1.0"`) {
		t.Errorf("after the refusals 0.1.0 is not listed: %+v", r)
	}
}

// TestPruneKeptSignatures: someone who can push tags but holds no key moves
// the old release's classic signature and attestation tags onto the kept
// release's: prune --keep 1 --yes deletes the old release, leaves the kept
// release's signature and attestation in place (reported skipped, naming
// what needs them), and the kept release still verifies.
func TestPruneKeptSignatures(t *testing.T) {
	for _, reg := range realregistry.Both() {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			pub := pushVersions(t, host, "0.1.0", "0.2.0")
			repo := host + "/addons/hello"
			old, kept := rawDigest(t, host, "0.1.0"), rawDigest(t, host, "0.2.0")
			for _, suffix := range []string{".sig", ".att"} {
				rawCopy(t, host, "sha256-"+kept[7:]+suffix, "sha256-"+old[7:]+suffix)
			}

			var out struct {
				Plan struct {
					Skipped []struct{ Kind, Digest, Tag, NeededBy, Reason string }
				}
			}
			j := run(t, nil, "prune", repo, "--keep", "1", "--format", "json")
			if err := json.Unmarshal([]byte(j.out), &out); err != nil || j.code != 0 {
				t.Fatalf("-o json: %v %+v", err, j)
			}
			if len(out.Plan.Skipped) != 2 {
				t.Fatalf("skipped %+v, want the kept signature and attestation", out.Plan.Skipped)
			}
			for _, s := range out.Plan.Skipped {
				if s.Kind != "tag" || s.NeededBy != "kept tag 0.2.0" || !strings.HasPrefix(s.Tag, "sha256-"+old[7:]) || !strings.Contains(s.Reason, kept[7:]) {
					t.Errorf("skip %+v: want the moved tag, needed by kept tag 0.2.0 through its own tag", s)
				}
			}

			y := run(t, nil, "prune", repo, "--keep", "1", "--yes")
			if y.code != 0 || !strings.Contains(y.out, "deleted release") || strings.Count(y.out, "skipped tag") != 2 {
				t.Fatalf("--yes: %+v", y)
			}
			if v := run(t, nil, "verify", repo+":0.2.0", "--key", pub, "--require-provenance"); v.code != 0 {
				t.Errorf("kept 0.2.0 no longer verifies: %+v", v)
			}
			if v := run(t, nil, "verify", repo+":0.1.0", "--key", pub); v.code != 4 {
				t.Errorf("0.1.0 after prune: exit %d, want 4 (not found): %+v", v.code, v)
			}
		})
	}
}

// rawDigest is the digest tag of addons/hello points at, read over plain HTTP.
func rawDigest(t *testing.T, host, tag string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodHead, "http://"+host+"/v2/addons/hello/manifests/"+tag, nil)
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	d := resp.Header.Get("Docker-Content-Digest")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(d, "sha256:") {
		t.Fatalf("HEAD %s: HTTP %d, digest %q", tag, resp.StatusCode, d)
	}
	return d
}

// rawCopy pushes the manifest tag from points at under tag to, as anyone
// allowed to push tags can, with no key.
func rawCopy(t *testing.T, host, from, to string) {
	t.Helper()
	base := "http://" + host + "/v2/addons/hello/manifests/"
	req, _ := http.NewRequest(http.MethodGet, base+from, nil)
	req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d %v", from, resp.StatusCode, err)
	}
	put, _ := http.NewRequest(http.MethodPut, base+to, bytes.NewReader(body))
	put.Header.Set("Content-Type", resp.Header.Get("Content-Type"))
	presp, err := http.DefaultClient.Do(put)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	if presp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT %s: HTTP %d", to, presp.StatusCode)
	}
}
