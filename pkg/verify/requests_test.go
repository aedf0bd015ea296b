package verify_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// TestRequestsPerReference counts what verify.All asks the registry for
// signed add-ons (a cosign signature and a SLSA provenance attestation,
// provenance required): per reference one HEAD of the tag, one GET of each
// of the .sig and .att manifests (by tag, no HEAD first), one GET of the
// attestation's envelope (the signature's simple-signing payload is built,
// not fetched: TestClassicPayloadRequests), and one referrers listing. A registry without the referrers
// API (distribution 2.8 answers 404) is asked for it once per client; the
// referrers tag schema is then read directly.
func TestRequestsPerReference(t *testing.T) {
	noAPI := testregistry.Faults{Rules: []testregistry.FaultRule{{
		Match: testregistry.MatchPath("/referrers/"), Kind: testregistry.Status5xx, Status: http.StatusNotFound,
	}}}
	for _, tc := range []struct {
		name string
		opts []testregistry.Option
		want map[string]int
	}{
		{"referrers API", nil, map[string]int{
			"HEAD tag": 3, "GET .sig": 3, "GET .att": 3, "GET blob": 3, "GET referrers": 3,
		}},
		{"no referrers API", []testregistry.Option{testregistry.WithFaults(noAPI)}, map[string]int{
			"HEAD tag": 3, "GET .sig": 3, "GET .att": 3, "GET blob": 3, "GET referrers": 1, "GET referrers tag": 3,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			reg := testregistry.New(t, tc.opts...)
			k := newKey(t)
			var refs []registry.Reference
			for i := range 3 {
				e := pushHello(t, reg.Host(), fmt.Sprintf("addons/r%d", i), "0.1.0", "")
				mustSign(t, e, k, sign.FormatClassic)
				if _, err := sign.Attest(ctx, e.target, e.desc, k, slsaFor(t, e, "https://ci.example/b"), sign.Options{}); err != nil {
					t.Fatal(err)
				}
				refs = append(refs, e.ref)
			}
			c, err := registry.New(registry.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := policyFor(t, k).WithProvenance(verify.ProvenanceRules{Required: true})
			reg.ResetLog()
			// One at a time, so that the referrers capability is learnt
			// before the second reference.
			for _, o := range verify.All(ctx, c, refs, p, verify.BatchOptions{Concurrency: 1}) {
				if !o.Verified {
					t.Fatalf("%s: %v", o.Reference, o.Err)
				}
			}
			got := map[string]int{}
			for _, r := range reg.Log() {
				got[requestKind(r)]++
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("requests for 3 references: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClassicPayloadRequests checks when a classic signature's payload is
// fetched: not when it is the plain claim for the subject in the
// repository verified (it is built and matched to the layer's digest),
// and when it carries annotations (the claim built does not match). Each
// verifies either way.
func TestClassicPayloadRequests(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		blobs       int
	}{
		{"plain claim", nil, 0},
		{"annotated claim", map[string]string{"team": "platform"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			reg := testregistry.New(t)
			k := newKey(t)
			e := pushHello(t, reg.Host(), "addons/hello", "0.1.0", "")
			if _, err := sign.Sign(ctx, e.target, e.desc, k, sign.Options{Format: sign.FormatClassic, Annotations: tc.annotations}); err != nil {
				t.Fatal(err)
			}
			reg.ResetLog()
			res, err := verify.Verify(ctx, e.vt, e.desc, policyFor(t, k))
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if len(res.Signatures) != 1 || res.Signatures[0].Verdict != verify.Valid {
				t.Fatalf("signatures: %+v", res.Signatures)
			}
			if got := requestsOf(reg, "GET blob"); got != tc.blobs {
				t.Errorf("%d blob GETs, want %d", got, tc.blobs)
			}
		})
	}
}

// requestsOf counts the requests in reg's log of any of kinds (requestKind).
func requestsOf(reg *testregistry.Registry, kinds ...string) int {
	n := 0
	for _, r := range reg.Log() {
		if slices.Contains(kinds, requestKind(r)) {
			n++
		}
	}
	return n
}

func requestKind(r testregistry.Request) string {
	switch {
	case strings.Contains(r.Path, "/referrers/"):
		return r.Method + " referrers"
	case strings.Contains(r.Path, "/blobs/"):
		return r.Method + " blob"
	case strings.HasSuffix(r.Path, ".sig"):
		return r.Method + " .sig"
	case strings.HasSuffix(r.Path, ".att"):
		return r.Method + " .att"
	case strings.Contains(r.Path, "/manifests/sha256-"):
		return r.Method + " referrers tag"
	case strings.Contains(r.Path, "/manifests/sha256:"):
		return r.Method + " manifest by digest"
	case strings.Contains(r.Path, "/manifests/"):
		return r.Method + " tag"
	}
	return r.Method + " " + r.Path
}
