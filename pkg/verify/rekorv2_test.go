package verify_test

import (
	"context"
	"testing"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/verify"
)

// v2Sign is what a Rekor v2 keyless signature is made with: the entry in
// the test Sigstore's Rekor v2 log, and a timestamp by its TSA.
var v2Sign = testsigstore.SignOptions{RekorV2: true}

// TestRekorV2Verifies: a keyless bundle whose log entry is a Rekor v2
// entry (hashedrekord v0.0.2, checkpoint and inclusion proof, no signed
// entry timestamp, integrated time 0) and which carries an RFC 3161
// timestamp verifies offline against a root listing the Rekor v2 log,
// alone or beside a Rekor v1 log; a Rekor v1 signature still verifies
// against the root listing both.
func TestRekorV2Verifies(t *testing.T) {
	for _, tc := range []struct {
		name string
		root testsigstore.RootOptions
		sign testsigstore.SignOptions
	}{
		{"v2 entry, root with v1 and v2 logs", testsigstore.RootOptions{RekorV2: true}, v2Sign},
		{"v2 entry, root with the v2 log only", testsigstore.RootOptions{RekorV2: true, WithoutRekor: true}, v2Sign},
		{"v1 entry, root with v1 and v2 logs", testsigstore.RootOptions{RekorV2: true}, testsigstore.SignOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSigstoreWorld(t, tc.root)
			e := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
			w.signBundle(t, e, release.Identity(), e.desc.Digest.String(), tc.sign)
			res, err := verify.Verify(context.Background(), e.vt, e.desc, keylessPolicy(t, 1, w.workflowIdentity("release")))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Verified || len(res.SignedBy) != 1 || res.Signatures[0].IdentityName != "release" {
				t.Fatalf("result: %+v", res)
			}
		})
	}
}

// TestRekorV2Refusals: what a Rekor v2 entry must prove, each refusal with
// the reason in words and the keyless class (exit code 9).
func TestRekorV2Refusals(t *testing.T) {
	v2root := testsigstore.RootOptions{RekorV2: true}
	for _, tc := range []struct {
		name   string
		root   testsigstore.RootOptions
		sign   testsigstore.SignOptions
		tamper func(t *testing.T, w sigstoreWorld, e *protorekor.TransparencyLogEntry)
		says   string
	}{
		{name: "no timestamp", root: v2root, sign: testsigstore.SignOptions{RekorV2: true, NoTimestamp: true},
			says: "a Rekor v2 entry proves inclusion in the log, not when the signature was made, so an RFC 3161 timestamp must prove the signing time, and the signature has none"},
		{name: "root without a timestamping authority", root: testsigstore.RootOptions{RekorV2: true, WithoutTSA: true}, sign: v2Sign,
			says: "lists no timestamping authority"},
		{name: "root without the Rekor v2 log", root: testsigstore.RootOptions{}, sign: v2Sign,
			says: "which the root does not list"},
		{name: "checkpoint signed by another log key", root: v2root, sign: testsigstore.SignOptions{RekorV2: true, ForeignLog: true},
			says: "unverified checkpoint signature"},
		{name: "truncated inclusion proof", root: v2root, sign: v2Sign, says: "verifying inclusion",
			tamper: func(t *testing.T, _ sigstoreWorld, e *protorekor.TransparencyLogEntry) {
				h := e.InclusionProof.Hashes
				e.InclusionProof.Hashes = h[:len(h)-1]
			}},
		{name: "reordered inclusion proof", root: v2root, sign: v2Sign, says: "verifying inclusion",
			tamper: func(t *testing.T, _ sigstoreWorld, e *protorekor.TransparencyLogEntry) {
				h := e.InclusionProof.Hashes
				h[0], h[1] = h[1], h[0]
			}},
		{name: "proof hash that does not recompute", root: v2root, sign: v2Sign, says: "verifying inclusion",
			tamper: func(t *testing.T, _ sigstoreWorld, e *protorekor.TransparencyLogEntry) {
				e.InclusionProof.Hashes[1][0] ^= 1
			}},
		{name: "another leaf index", root: v2root, sign: v2Sign, says: "verifying inclusion",
			tamper: func(t *testing.T, _ sigstoreWorld, e *protorekor.TransparencyLogEntry) {
				e.LogIndex++
			}},
		{name: "entry and proof of another artifact", root: v2root, sign: v2Sign, says: "verifying inclusion",
			tamper: func(t *testing.T, w sigstoreWorld, e *protorekor.TransparencyLogEntry) {
				other := v2Entry(t, w, []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"x"}`))
				e.LogIndex, e.InclusionProof, e.CanonicalizedBody = other.LogIndex, other.InclusionProof, other.CanonicalizedBody
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSigstoreWorld(t, tc.root)
			e := pushHello(t, testregistryHost(t), "addons/hello", "0.1.0", "")
			stmt, err := testsigstore.Statement(e.ref.Repo(), e.desc.Digest.String(), testsigstore.CosignSignPredicate, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := w.ss.DSSEBundle(release.Identity(), stmt, tc.sign)
			if err != nil {
				t.Fatal(err)
			}
			if tc.tamper != nil {
				b = editEntry(t, b, func(e *protorekor.TransparencyLogEntry) { tc.tamper(t, w, e) })
			}
			if err := testsigstore.WriteBundle(context.Background(), e.ref.WithDigest(e.desc.Digest).String(), b, testsigstore.CosignSignPredicate); err != nil {
				t.Fatal(err)
			}
			refuse(t, e, keylessPolicy(t, 1, w.workflowIdentity("release")), verify.ErrKeyless, tc.says)
		})
	}
}

// v2Entry is the Rekor v2 entry of a bundle signing stmt.
func v2Entry(t *testing.T, w sigstoreWorld, stmt []byte) *protorekor.TransparencyLogEntry {
	t.Helper()
	b, err := w.ss.DSSEBundle(release.Identity(), stmt, v2Sign)
	if err != nil {
		t.Fatal(err)
	}
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(b, &pb); err != nil {
		t.Fatal(err)
	}
	return pb.GetVerificationMaterial().GetTlogEntries()[0]
}

// editEntry changes the first log entry of bundle b.
func editEntry(t *testing.T, b []byte, edit func(*protorekor.TransparencyLogEntry)) []byte {
	t.Helper()
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(b, &pb); err != nil {
		t.Fatal(err)
	}
	entries := pb.GetVerificationMaterial().GetTlogEntries()
	if len(entries) != 1 || entries[0].GetKindVersion().GetVersion() != "0.0.2" || entries[0].GetIntegratedTime() != 0 ||
		entries[0].GetInclusionPromise() != nil || len(entries[0].GetInclusionProof().GetHashes()) < 2 {
		t.Fatalf("want one Rekor v2 entry with a proof of two hashes or more, got %v", entries)
	}
	edit(entries[0])
	out, err := protojson.Marshal(&pb)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
