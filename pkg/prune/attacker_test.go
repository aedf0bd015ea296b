package prune_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/sign"
)

// The helpers here act as someone who can push manifests under any tag of
// the repository but holds no signing key: every manifest they push is
// either the bytes of one already there or an index of ones already there.

// put pushes body as a manifest under tag with plain HTTP (both test
// registries listen on loopback without auth).
func (f *fixture) put(t *testing.T, tag, mediaType string, body []byte) ocispec.Descriptor {
	t.Helper()
	u := "http://" + f.repo.Registry + "/v2/" + f.repo.Repository + "/manifests/" + tag
	req, err := http.NewRequest(http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mediaType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT %s: HTTP %d", u, resp.StatusCode)
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(body), Size: int64(len(body))}
}

// retag points tag at the manifest d: its bytes pushed again under tag.
func (f *fixture) retag(t *testing.T, tag string, d digest.Digest) {
	t.Helper()
	desc, body, err := f.c.ResolveManifest(context.Background(), f.repo.WithDigest(d))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.put(t, tag, desc.MediaType, body); got.Digest != d {
		t.Fatalf("retag %s: pushed %s, want %s", tag, got.Digest, d)
	}
}

// index pushes under tag an OCI image index listing the manifests ds.
func (f *fixture) index(t *testing.T, tag string, ds ...digest.Digest) ocispec.Descriptor {
	t.Helper()
	idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
	for _, d := range ds {
		idx.Manifests = append(idx.Manifests, f.desc(t, d))
	}
	body, err := json.Marshal(idx)
	if err != nil {
		t.Fatal(err)
	}
	return f.put(t, tag, ocispec.MediaTypeImageIndex, body)
}

// desc resolves the manifest d.
func (f *fixture) desc(t *testing.T, d digest.Digest) ocispec.Descriptor {
	t.Helper()
	desc, err := f.c.Resolve(context.Background(), f.repo.WithDigest(d))
	if err != nil {
		t.Fatal(err)
	}
	return desc
}

// at resolves tag; "" when it does not exist.
func (f *fixture) at(t *testing.T, tag string) digest.Digest {
	t.Helper()
	ref := f.repo
	ref.Tag = tag
	d, err := f.c.Resolve(context.Background(), ref)
	if err != nil {
		return ""
	}
	return d.Digest
}

// sig and att are the manifests the classic tags of release v point at;
// bundles are its referrers (Sigstore bundles), sorted by digest.
func (f *fixture) sig(t *testing.T, v string) digest.Digest {
	t.Helper()
	return f.at(t, sign.CosignTag(f.digests[v], sign.TagSuffixSignature))
}

func (f *fixture) att(t *testing.T, v string) digest.Digest {
	t.Helper()
	return f.at(t, sign.CosignTag(f.digests[v], sign.TagSuffixAttestation))
}

func (f *fixture) bundles(t *testing.T, v string) []digest.Digest {
	t.Helper()
	refs, _, err := f.c.Referrers(context.Background(), f.repo, f.digests[v], "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []digest.Digest
	for _, r := range refs {
		out = append(out, r.Digest)
	}
	if len(out) != 2 {
		t.Fatalf("%s has %d referrers, want 2 (signature and attestation bundles)", v, len(out))
	}
	return out
}

// vouchTag is the tag cosign (suffix "sig", "att", "sbom") or the referrers
// tag schema (suffix "") gives what vouches for d.
func vouchTag(d digest.Digest, suffix string) string {
	t := d.Algorithm().String() + "-" + d.Encoded()
	if suffix != "" {
		t += "." + suffix
	}
	return t
}
