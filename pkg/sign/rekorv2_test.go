package sign_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/sign"
)

// Keyless signing and attesting with a signing config that lists a Rekor
// v2 log beside a v1 log write to the v2 log only, always with a TSA
// timestamp: each bundle carries a Rekor v2 entry (hashedrekord v0.0.2, inclusion proof
// and checkpoint, no signed entry timestamp) and verifies against the root
// listing the Rekor v2 log, with the time from the timestamp.
func TestKeylessRekorV2(t *testing.T) {
	w := newKeylessWorld(t)
	rootJSON, err := w.ss.TrustedRootJSON(testsigstore.RootOptions{RekorV2: true})
	if err != nil {
		t.Fatal(err)
	}
	scJSON, err := os.ReadFile(w.srv.SigningConfigRekorV2File(t))
	if err != nil {
		t.Fatal(err)
	}
	k, err := sign.NewKeyless(sign.KeylessConfig{IDToken: w.srv.Token(t, w.workflow.Claims()), SigningConfig: scJSON, TrustedRoot: rootJSON})
	if err != nil {
		t.Fatal(err)
	}
	if _, logs, tsas := k.Services(); len(logs) != 1 || logs[0] != (sign.Log{URL: w.srv.RekorV2.URL, Version: sign.RekorV2}) || len(tsas) != 1 {
		t.Fatalf("services: logs %v, TSAs %v", logs, tsas)
	}
	ctx := context.Background()
	p := testartifact.PushHello(t, testregistryHost(t), "addons/hello", "0.1.0", build.Options{})
	tgt := sign.Target{Client: p.Client, Ref: p.Ref}
	if _, err := sign.Sign(ctx, tgt, p.Desc, nil, sign.Options{Keyless: k}); err != nil {
		t.Fatal(err)
	}
	stmt, err := sign.Statement(p.Ref.Repo(), p.Desc.Digest, "https://slsa.dev/provenance/v1", json.RawMessage(`{"buildDefinition":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sign.Attest(ctx, tgt, p.Desc, nil, stmt, sign.Options{Keyless: k}); err != nil {
		t.Fatal(err)
	}
	if v1, v2 := len(w.srv.Rekor.Entries()), len(w.srv.RekorV2.Entries()); v1 != 0 || v2 != 2 {
		t.Fatalf("Rekor v1 holds %d entries, Rekor v2 %d; want 0 and 2", v1, v2)
	}
	tr, err := w.ss.TrustedRoot(testsigstore.RootOptions{RekorV2: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.NewVerifier(tr, verify.WithTransparencyLog(1), verify.WithSignedTimestamps(1), verify.WithSignedCertificateTimestamps(1))
	if err != nil {
		t.Fatal(err)
	}
	got := bundles(t, p)
	if len(got) != 2 {
		t.Fatalf("%d bundles, want 2", len(got))
	}
	for pt, b := range got {
		var pb bundle.Bundle
		if err := pb.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		e := pb.GetVerificationMaterial().GetTlogEntries()
		if len(e) != 1 || e[0].GetKindVersion().GetKind() != "hashedrekord" || e[0].GetKindVersion().GetVersion() != "0.0.2" ||
			e[0].GetIntegratedTime() != 0 || e[0].GetInclusionPromise() != nil || e[0].GetInclusionProof().GetCheckpoint() == nil {
			t.Fatalf("%s: log entries %v, want one Rekor v2 entry", pt, e)
		}
		if n := len(pb.GetVerificationMaterial().GetTimestampVerificationData().GetRfc3161Timestamps()); n != 1 {
			t.Fatalf("%s: %d RFC 3161 timestamps, want 1", pt, n)
		}
		res, err := v.Verify(&pb, verify.NewPolicy(verify.WithArtifactDigest("sha256", mustHex(t, p.Desc.Digest.String())), verify.WithoutIdentitiesUnsafe()))
		if err != nil {
			t.Fatalf("%s: %v", pt, err)
		}
		if len(res.VerifiedTimestamps) != 1 || res.VerifiedTimestamps[0].Type != "TimestampAuthority" {
			t.Errorf("%s: verified timestamps %+v, want the TSA's only", pt, res.VerifiedTimestamps)
		}
	}
}
