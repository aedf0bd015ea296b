package verify_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/verify"
)

// statementFor returns an in-toto v1 statement about e of predicateType.
func statementFor(e env, predicateType string) []byte {
	return fmt.Appendf(nil, `{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":%q,"digest":{"sha256":%q}}],"predicateType":%q,"predicate":{}}`,
		e.ref.Repo(), e.desc.Digest.Encoded(), predicateType)
}

// pushManifest pushes m (whose blobs the repository already has, plus extra
// blobs) under tag.
func pushManifest(t *testing.T, e env, tag string, m ocispec.Manifest, blobs ...[]byte) {
	t.Helper()
	ctx := context.Background()
	store := memory.New()
	for _, b := range blobs {
		dg := digest.FromBytes(b)
		for _, d := range append([]ocispec.Descriptor{m.Config}, m.Layers...) {
			if d.Digest != dg {
				continue
			}
			if err := store.Push(ctx, d, bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	root := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	if err := store.Push(ctx, root, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	ref := e.ref
	ref.Tag = tag
	if _, err := e.client.Push(ctx, store, root, ref); err != nil {
		t.Fatal(err)
	}
}

// fetchTag returns the manifest tagged tag in e's repository.
func fetchTag(t *testing.T, e env, tag string) ocispec.Manifest {
	t.Helper()
	ctx := context.Background()
	ref := e.ref
	ref.Tag = tag
	d, err := e.client.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := e.client.FetchManifest(ctx, ref, d)
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// copyTag makes dst point at the manifest src points at (an attacker
// copying a valid signature image onto another digest's tag).
func copyTag(t *testing.T, e env, src, dst string) {
	t.Helper()
	pushManifest(t, e, dst, fetchTag(t, e, src))
}

// relabel rewrites the predicateType annotation of every layer of e's .att
// image (the signed envelope is unchanged).
func relabel(t *testing.T, e env, predicateType string) {
	t.Helper()
	tag := e.desc.Digest.Algorithm().String() + "-" + e.desc.Digest.Encoded() + ".att"
	m := fetchTag(t, e, tag)
	for i := range m.Layers {
		m.Layers[i].Annotations["predicateType"] = predicateType
	}
	pushManifest(t, e, tag, m)
}

// pushRawSignature stores a classic signature over an arbitrary payload.
func pushRawSignature(t *testing.T, e env, k *keys.Signer, payload string) {
	t.Helper()
	sig, err := k.SignMessage(strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	cfg := []byte("{}")
	m := ocispec.Manifest{
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    ocispec.Descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: digest.FromBytes(cfg), Size: 2},
		Layers: []ocispec.Descriptor{{
			MediaType: "application/vnd.dev.cosign.simplesigning.v1+json", Digest: digest.FromString(payload), Size: int64(len(payload)),
			Annotations: map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)},
		}},
	}
	m.SchemaVersion = 2
	tag := e.desc.Digest.Algorithm().String() + "-" + e.desc.Digest.Encoded() + ".sig"
	pushManifest(t, e, tag, m, cfg, []byte(payload))
}

func pubFile(t *testing.T, k *keys.Signer) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "k.pub")
	writeFile(t, p, k.PublicPEM())
	return p
}

func loadPolicy(t *testing.T, doc string) *verify.Policy {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := verify.LoadPolicy(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func windowPolicy(t *testing.T, k *keys.Signer, notBefore, notAfter time.Time) *verify.Policy {
	return loadPolicy(t, fmt.Sprintf(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - name: old
    path: %s
    notBefore: %s
    notAfter: %s
scopes:
  - keys: [old]
`, pubFile(t, k), notBefore.UTC().Format(time.RFC3339), notAfter.UTC().Format(time.RFC3339)))
}

func thresholdPolicy(t *testing.T, n int, a, b *keys.Signer) *verify.Policy {
	return loadPolicy(t, fmt.Sprintf(`apiVersion: addonpack.dev/v1alpha1
kind: VerificationPolicy
keys:
  - name: alice
    path: %s
  - name: bob
    publicKey: |
%s
scopes:
  - keys: [alice, bob]
    threshold: %d
`, pubFile(t, a), indent(string(b.PublicPEM()), "      "), n))
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = pre + lines[i]
	}
	return strings.Join(lines, "\n")
}
