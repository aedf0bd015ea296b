package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

// worldPassword is the password of release.key, in COSIGN_PASSWORD for the
// docs/ pages.
const worldPassword = "secret"

// newWorld makes the directory a docs/ page's commands run in — what the
// README's quick start leaves, and a little more — and returns it with the
// ports of three fresh registries standing for localhost:5000, 5001 and
// 5002:
//
//   - release.key (password in COSIGN_PASSWORD) and release.pub;
//   - hello/, as addonpack init writes it but for its image, which lives at
//     localhost:5000/hashicorp/http-echo:1.0.0 (a one-layer image; there is
//     no network here), pushed signed as localhost:5000/addons/hello:0.1.0,
//     and a 0.2.0 of it from hello-0.2.0/;
//   - my-hello.yaml (its config defaults), policy.yaml trusting release.pub
//     everywhere, sbom.spdx.json, a stack addons.yaml of hello (values
//     my-hello.yaml) and its addons.lock;
//   - a copy of the repository's examples/.
func newWorld(t *testing.T) (string, []string) {
	t.Helper()
	var hosts, ports []string
	for range 3 {
		h := testregistry.New(t).Host()
		_, port, _ := strings.Cut(h, ":")
		hosts, ports = append(hosts, "localhost:"+port), append(ports, port)
	}
	reg := hosts[0]
	image := seedImage(t, reg, "hashicorp/http-echo", "1.0.0")

	dir := t.TempDir()
	env := []string{"HOME=" + filepath.Join(dir, "home"), "COSIGN_PASSWORD=" + worldPassword, "PATH=" + systemPath()}
	ap := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(addonpackBin, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("world: addonpack %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.String()
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(name, old, new string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte(old)) {
			t.Fatalf("world: %s lacks %q (%v)", name, old, err)
		}
		write(name, strings.Replace(string(b), old, new, 1))
	}

	ap("init", "hello")
	edit("hello/deployment.yaml", "docker.io/hashicorp/http-echo:1.0.0", image)
	ap("keygen", "--output-key-prefix", "release")
	ap("push", "hello", reg+"/addons/hello:0.1.0", "--key", "release.key")
	if err := os.CopyFS(filepath.Join(dir, "hello-0.2.0"), os.DirFS(filepath.Join(dir, "hello"))); err != nil {
		t.Fatal(err)
	}
	edit("hello-0.2.0/addon.yaml", "version: 0.1.0", "version: 0.2.0")
	ap("push", "hello-0.2.0", reg+"/addons/hello:0.2.0", "--key", "release.key")
	write("my-hello.yaml", ap("config", "defaults", "./hello"))
	write("policy.yaml", "apiVersion: addonpack.dev/v1alpha1\nkind: VerificationPolicy\nkeys:\n  - name: release\n    path: release.pub\nscopes:\n  - keys: [release]\n")
	write("sbom.spdx.json", `{"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT", "name": "hello", "dataLicense": "CC0-1.0"}`+"\n")
	write("addons.yaml", "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: "+reg+"/addons/hello\n    version: \">=0.1.0, <1.0.0\"\n    values: my-hello.yaml\n")
	ap("lock", "addons.yaml", "--key", "release.pub")
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	return dir, ports
}

// seedImage pushes a one-layer linux/amd64 image to host/repo:tag and
// returns its name.
func seedImage(t *testing.T, host, repo, tag string) string {
	t.Helper()
	ctx := context.Background()
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	put := func(mt string, b []byte) ocispec.Descriptor {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		if err := store.Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest,
		Config: put(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`)),
		Layers: []ocispec.Descriptor{put(ocispec.MediaTypeImageLayerGzip, []byte("layer"))}}
	m.SchemaVersion = 2
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, store, put(ocispec.MediaTypeImageManifest, raw), registry.Reference{Registry: host, Repository: repo, Tag: tag}); err != nil {
		t.Fatal(err)
	}
	return host + "/" + repo + ":" + tag
}
