package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// bundleReferrer returns the manifest of e's one bundle referrer and its
// descriptor.
func bundleReferrer(t *testing.T, e env) (ocispec.Manifest, ocispec.Descriptor) {
	t.Helper()
	ctx := context.Background()
	list, _, err := e.client.Referrers(ctx, e.ref, e.desc, sign.BundleMediaType, 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("referrers: %v %v", list, err)
	}
	raw, err := e.client.FetchManifest(ctx, e.ref.WithDigest(list[0].Digest), list[0])
	if err != nil {
		t.Fatal(err)
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m, list[0]
}

// TestBundleEmbedded: the bundle referrer addonpack writes embeds the
// bundle in its layer descriptor's data, byte for byte the blob it also
// uploads (which cosign reads), and verification takes it from there: no
// blob is fetched.
func TestBundleEmbedded(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	k := newKey(t)
	e := pushHello(t, reg.Host(), "addons/hello", "0.1.0", "")
	mustSign(t, e, k, sign.FormatBundle)
	m, _ := bundleReferrer(t, e)
	layer := m.Layers[0]
	blob, err := e.client.FetchBlobBytes(ctx, e.ref, layer, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(layer.Data) == 0 || !bytes.Equal(layer.Data, blob) {
		t.Fatalf("the layer descriptor embeds %d bytes, the blob is %d", len(layer.Data), len(blob))
	}
	reg.ResetLog()
	if _, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k)); err != nil {
		t.Fatal(err)
	}
	if n := requestsOf(reg, "GET blob"); n != 0 {
		t.Errorf("%d blobs fetched", n)
	}
}

// TestBundleEmbeddedMismatch: a referrer whose embedded data is not its
// layer (one byte changed, or one byte more) is an invalid candidate,
// though its blob, fetched, would verify; it does not hide a valid
// signature, and alone it fails verification. Empty data is read as
// absent: the blob is fetched and verifies. On distribution 2.8, which
// stores descriptor fields it does not know as they are (testregistry
// refuses such a manifest).
func TestBundleEmbeddedMismatch(t *testing.T) {
	ctx := context.Background()
	host := realregistry.Start(t, realregistry.Options{})
	k := newKey(t)
	signed := pushHello(t, host, "signed/hello", "0.1.0", "")
	mustSign(t, signed, k, sign.FormatBundle)
	for i, tt := range []struct {
		name   string
		tamper func([]byte) []byte
		valid  bool
	}{
		{"a byte changed", func(b []byte) []byte { return bytes.Replace(b, []byte(`"`), []byte(`'`), 1) }, false},
		{"a byte more", func(b []byte) []byte { return append(b, ' ') }, false},
		{"empty", func([]byte) []byte { return nil }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			beside := pushHello(t, host, fmt.Sprintf("beside%d/hello", i), "0.1.0", "")
			mustSign(t, beside, k, sign.FormatBundle)
			tampered := pushTampered(t, signed, beside, tt.tamper)
			res, err := verify.Verify(ctx, beside.vt, beside.desc, policyFor(t, k))
			if err != nil {
				t.Fatalf("a valid signature beside the tampered one: %v", err)
			}
			invalid := 0
			for _, c := range res.Signatures {
				if c.Verdict == verify.Invalid {
					invalid++
					if !strings.Contains(c.Reason, "data is not") || !strings.Contains(c.Location, tampered.String()) {
						t.Errorf("the tampered referrer's reason: %s at %s", c.Reason, c.Location)
					}
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tt.valid]; invalid != want || len(res.Signatures) != 2 || len(res.SignedBy) != 1 {
				t.Fatalf("%d invalid, want %d: %+v", invalid, want, res.Signatures)
			}

			alone := pushHello(t, host, fmt.Sprintf("alone%d/hello", i), "0.1.0", "")
			pushTampered(t, signed, alone, tt.tamper)
			res, err = verify.Verify(ctx, alone.vt, alone.desc, policyFor(t, k))
			if tt.valid {
				if err != nil {
					t.Fatalf("alone: %v", err)
				}
				return
			}
			wantErr(t, err, verify.ErrMalformed)
			if res == nil || res.Verified {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

// TestBundleLargeNotEmbedded: an attestation whose bundle is over 64 KiB
// is stored as a blob only (no data in its referrer's manifest), fetched,
// and verifies.
func TestBundleLargeNotEmbedded(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	k := newKey(t)
	e := pushHello(t, reg.Host(), "addons/hello", "0.1.0", "")
	mustSign(t, e, k, sign.FormatBundle)
	pad := strings.Repeat("x", 96<<10)
	attest(t, e, k, statementWith(e, customType, fmt.Appendf(nil, `{"pad":%q}`, pad)))
	list, _, err := e.client.Referrers(ctx, e.ref, e.desc, sign.BundleMediaType, 10)
	if err != nil || len(list) != 2 {
		t.Fatalf("referrers: %v %v", list, err)
	}
	embedded := 0
	for _, d := range list {
		raw, err := e.client.FetchManifest(ctx, e.ref.WithDigest(d.Digest), d)
		if err != nil {
			t.Fatal(err)
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Layers[0].Data) > 0 {
			embedded++
		} else if m.Layers[0].Size <= 64<<10 {
			t.Errorf("a %d-byte bundle is not embedded", m.Layers[0].Size)
		}
	}
	if embedded != 1 {
		t.Fatalf("%d of 2 bundles embedded, want the signature's only", embedded)
	}
	reg.ResetLog()
	p := policyFor(t, k).WithProvenance(verify.ProvenanceRules{PredicateTypes: []string{customType}})
	if _, err := verify.Verify(ctx, e.vt, e.desc, p); err != nil {
		t.Fatal(err)
	}
	if blobs := requestsOf(reg, "GET blob"); blobs != 1 {
		t.Errorf("%d blobs fetched, want the large attestation's", blobs)
	}
}

// pushTampered copies from's bundle referrer to to (the same add-on in
// another repository), with its embedded data changed by tamper, and
// returns the tampered manifest's digest.
func pushTampered(t *testing.T, from, to env, tamper func([]byte) []byte) digest.Digest {
	t.Helper()
	ctx := context.Background()
	m, d := bundleReferrer(t, from)
	store := memory.New()
	for _, b := range []ocispec.Descriptor{m.Config, m.Layers[0]} {
		raw, err := from.client.FetchBlobBytes(ctx, from.ref, b, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		b.Data = nil
		if err := store.Push(ctx, b, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
	}
	m.Layers[0].Data = tamper(m.Layers[0].Data)
	raw, _ := json.Marshal(m)
	if len(m.Layers[0].Data) == 0 { // omitempty dropped it: write "data": "" as such
		layer := []byte(`{"mediaType":"` + sign.BundleMediaType + `"`)
		if !bytes.Contains(raw, layer) {
			t.Fatalf("no bundle layer in %s", raw)
		}
		raw = bytes.Replace(raw, layer, []byte(`{"data":"","mediaType":"`+sign.BundleMediaType+`"`), 1)
	}
	root := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: sign.BundleMediaType,
		Digest: digest.FromBytes(raw), Size: int64(len(raw)), Annotations: d.Annotations}
	if err := store.Push(ctx, root, bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	repo := to.ref
	repo.Tag, repo.Digest = "", ""
	if _, err := to.client.PushNew(ctx, store, root, repo); err != nil {
		t.Fatal(err)
	}
	return root.Digest
}
