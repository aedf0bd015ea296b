package interop_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layerDigest returns the content layer's digest as `addonpack inspect` reports it.
func layerDigest(t *testing.T, ref string) string {
	t.Helper()
	var info struct{ Layers []struct{ Digest string } }
	if err := json.Unmarshal([]byte(must(t, nil, "inspect", ref, "--format", "json")), &info); err != nil || len(info.Layers) != 1 {
		t.Fatalf("inspect %s: %v %+v", ref, err, info)
	}
	return info.Layers[0].Digest
}

// readTar returns the regular files of a tar stream (gunzipped first when gz).
func readTar(t *testing.T, r io.Reader, gz bool) map[string][]byte {
	t.Helper()
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			files[strings.TrimPrefix(h.Name, "./")] = b
		}
	}
}

// sameTree wants every file of the add-on source among files, unchanged.
func sameTree(t *testing.T, src string, files map[string][]byte) {
	t.Helper()
	n := 0
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		want, _ := os.ReadFile(p)
		if got, ok := files[filepath.ToSlash(rel)]; !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: missing or different in the client's output", rel)
		}
		n++
		return nil
	})
	if n == 0 || n != len(files) {
		t.Errorf("source has %d files, the client wrote %d", n, len(files))
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestOrasPull: `oras pull` writes the content layer as package.tar.gz, the
// exact blob, and it unpacks to the add-on source tree.
func TestOrasPull(t *testing.T) {
	oras := tool(t, "oras")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p := publish(t, reg.Start(t), "addons/hello", "classic")
			out := filepath.Join(p.dir, "oras-out")
			peer(t, oras, nil, "pull", "--plain-http", p.ref, "-o", out)
			got := filepath.Join(out, "package.tar.gz")
			if d := sha256File(t, got); d != layerDigest(t, p.ref) {
				t.Fatalf("oras wrote %s, the layer is %s", d, layerDigest(t, p.ref))
			}
			f, _ := os.Open(got)
			defer f.Close()
			sameTree(t, p.src, readTar(t, f, true))
		})
	}
}

// TestCraneExport: `crane export` flattens the one layer into a tar of the
// add-on source tree.
func TestCraneExport(t *testing.T) {
	crane := tool(t, "crane")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p := publish(t, reg.Start(t), "addons/hello", "classic")
			out := filepath.Join(p.dir, "export.tar")
			peer(t, crane, nil, "export", "--insecure", p.ref, out)
			f, _ := os.Open(out)
			defer f.Close()
			sameTree(t, p.src, readTar(t, f, false))
		})
	}
}

// TestSkopeoCopy: `skopeo copy` reads the artifact into an OCI layout with
// the same manifest digest, and registry to registry; addonpack pulls the
// copy and gets the same tree.
func TestSkopeoCopy(t *testing.T) {
	skopeo := tool(t, "skopeo")
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			host := reg.Start(t)
			p := publish(t, host, "addons/hello", "classic")
			dir := filepath.Join(p.dir, "skopeo-layout")
			peer(t, skopeo, nil, "--insecure-policy", "copy", "--preserve-digests", "--src-tls-verify=false",
				"docker://"+p.ref, "oci:"+dir+":hello")
			var idx struct{ Manifests []struct{ Digest string } }
			b, _ := os.ReadFile(filepath.Join(dir, "index.json"))
			if err := json.Unmarshal(b, &idx); err != nil || len(idx.Manifests) != 1 || idx.Manifests[0].Digest != p.digest {
				t.Fatalf("skopeo's layout index: %v %s (want %s)", err, b, p.digest)
			}
			f, err := os.Open(filepath.Join(dir, "blobs", "sha256", strings.TrimPrefix(layerDigest(t, p.ref), "sha256:")))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sameTree(t, p.src, readTar(t, f, true))

			copyRef := host + "/skopeo/hello:0.1.0"
			peer(t, skopeo, nil, "--insecure-policy", "copy", "--preserve-digests", "--src-tls-verify=false", "--dest-tls-verify=false",
				"docker://"+p.ref, "docker://"+copyRef)
			pulled := filepath.Join(p.dir, "pulled")
			r := must(t, nil, "pull", copyRef, "-o", pulled, "--insecure-skip-verify", "--no-cache", "--format", "json")
			if !strings.Contains(r, p.digest) {
				t.Fatalf("pull of skopeo's copy: %s (want %s)", r, p.digest)
			}
		})
	}
}
