package stack

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/errdef"
)

var (
	keyA = Signer{KeyID: "sha256:" + strings.Repeat("a", 64), Name: "team"}
	keyB = Signer{KeyID: "sha256:" + strings.Repeat("b", 64), Name: "vendor"}
	ci   = Signer{Issuer: "https://token.actions.githubusercontent.com", Subject: "https://github.com/example/app/.github/workflows/release.yml@refs/heads/main", Name: "ci"}
	fork = Signer{Issuer: "https://token.actions.githubusercontent.com", Subject: "https://github.com/fork/app/.github/workflows/release.yml@refs/heads/main", Name: "fork"}
	// ciTag is ci's workflow run for a release tag: the same lineage.
	ciTag = Signer{Issuer: ci.Issuer, Subject: "https://github.com/example/app/.github/workflows/release.yml@refs/tags/v1.5.0", Name: "ci"}
	// nightly is another workflow of ci's repository: another signer.
	nightly = Signer{Issuer: ci.Issuer, Subject: "https://github.com/example/app/.github/workflows/nightly.yml@refs/tags/v1.5.0", Name: "nightly"}
)

// signed publishes name at version signed by signers, as the consumer
// path returns them (named, in no particular order); each set of signers
// makes another digest.
func (f *fakeRegistry) signed(name, version string, signers ...Signer) {
	f.add(name, version)
	repo := "registry.example/addons/" + name
	a := f.repos[repo][version]
	a.Signers = slices.Clone(signers)
	slices.Reverse(a.Signers)
	a.Digest = digest.FromString(a.Digest.String() + signerList(signers))
	f.repos[repo][version] = a
}

func TestLockRecordsSigners(t *testing.T) {
	st := writeStackV2(t, t.TempDir(), "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n")
	f := &fakeRegistry{}
	f.signed("app", "1.4.2", ci, keyB, keyA)
	l, err := WriteLock(t.Context(), f, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.APIVersion != APIVersionV1Alpha2 {
		t.Errorf("a lock with signers is %s", l.APIVersion)
	}
	b, _ := os.ReadFile(LockPath(st.Path))
	want := "    signers:\n      - keyId: " + keyA.KeyID + "\n      - keyId: " + keyB.KeyID + "\n      - issuer: " + ci.Issuer + "\n        subject: " + ci.Subject + "\n    level: 0\n"
	if !strings.Contains(string(b), want) || strings.Contains(string(b), "team") || strings.Contains(string(b), "name: ci") {
		t.Fatalf("lock:\n%s\nwant signers in order, without names:\n%s", b, want)
	}
	back, err := ReadLock(LockPath(st.Path))
	if err != nil || len(back.Addons[0].Signers) != 3 {
		t.Fatalf("read back: %v %+v", err, back)
	}
	// Unsigned (nothing verified): no signers, the v1alpha1 lock as before.
	st = writeStackV2(t, t.TempDir(), "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n")
	f = &fakeRegistry{}
	f.add("app", "1.4.2")
	if l, err = WriteLock(t.Context(), f, st, Options{}); err != nil || l.APIVersion != APIVersion {
		t.Fatalf("unsigned: %v %+v", err, l)
	}
}

func TestUpdateLockSignerChange(t *testing.T) {
	const stackBody = "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n"
	tests := []struct {
		name    string
		locked  []Signer // who signed 1.4.2 when it was locked
		next    []Signer // who signed 1.5.0
		refused string   // "" : accepted
	}{
		{"another key only", []Signer{keyA}, []Signer{keyB},
			"app 1.4.2 → 1.5.0: signed by " + keyA.KeyID + ", now only by " + keyB.KeyID + " (vendor)"},
		{"both keys", []Signer{keyA}, []Signer{keyA, keyB}, ""},
		{"one of two", []Signer{keyA, keyB}, []Signer{keyB}, ""},
		{"another keyless identity", []Signer{ci}, []Signer{fork},
			"app 1.4.2 → 1.5.0: signed by " + ci.Subject + " (issuer " + ci.Issuer + "), now only by " + fork.Subject + " (issuer " + fork.Issuer + ", fork)"},
		{"a key instead of an identity", []Signer{ci}, []Signer{keyA}, "now only by " + keyA.KeyID + " (team)"},
		{"the same identity", []Signer{ci}, []Signer{ci}, ""},
		{"the same workflow at another ref", []Signer{ci}, []Signer{ciTag}, ""},
		{"another workflow of the repository", []Signer{ciTag}, []Signer{nightly},
			"app 1.4.2 → 1.5.0: signed by " + ciTag.Subject + " (issuer " + ci.Issuer + "), now only by " + nightly.Subject},
		{"nothing recorded before", nil, []Signer{keyB}, ""},
		{"nothing recorded, nothing verified", nil, nil, ""},
		{"nothing verified now", []Signer{keyA}, nil,
			"app 1.4.2 → 1.5.0: not verified in this run: lineage cannot be checked (signed by " + keyA.KeyID + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := writeStackV2(t, t.TempDir(), stackBody)
			f := &fakeRegistry{}
			f.signed("app", "1.4.2", tt.locked...)
			if _, err := WriteLock(t.Context(), f, st, Options{}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(LockPath(st.Path))
			f.signed("app", "1.5.0", tt.next...)
			l, err := UpdateLock(t.Context(), f, st, nil, Options{})
			if tt.refused == "" {
				if err != nil || l.Addons[0].Version != "1.5.0" {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrSignerChange) || errdef.ClassOf(err) != errdef.ErrVerification ||
				!strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "pass --allow-signer-change to accept it") {
				t.Fatalf("got %v, want ErrSignerChange (verification) with %q", err, tt.refused)
			}
			if after, _ := os.ReadFile(LockPath(st.Path)); string(after) != string(before) {
				t.Fatal("a refused update rewrote the lock")
			}
			// Re-locking the same version keeps working.
			if _, err := UpdateLock(t.Context(), f, st, []string{"app"}, Options{Lowest: true}); err != nil {
				t.Fatalf("re-lock of 1.4.2: %v", err)
			}
			l, err = UpdateLock(t.Context(), f, st, nil, Options{AllowSignerChange: true})
			if err != nil {
				t.Fatal(err)
			}
			back, err := ReadLock(LockPath(st.Path))
			if err != nil || back.Addons[0].Version != "1.5.0" || len(back.Addons[0].Signers) != len(tt.next) ||
				len(tt.next) > 0 && !back.Addons[0].Signers[0].verify().Same(tt.next[0].verify()) {
				t.Fatalf("accepted change recorded as %+v (%v)", back.Addons, err)
			}
			// From then on the new signers are the lineage: a 1.6.0 they
			// sign moves without the flag.
			f.signed("app", "1.6.0", tt.next...)
			if l, err = UpdateLock(t.Context(), f, st, nil, Options{}); err != nil || l.Addons[0].Version != "1.6.0" {
				t.Fatalf("after the change: %v", err)
			}
		})
	}
}

// TestUpdateLockSignerChangeSameVersion: the same version's tag pushed
// again by another signer is a change too (the digest moved); the digest
// that stays is not compared, whoever signs it now.
func TestUpdateLockSignerChangeSameVersion(t *testing.T) {
	st := writeStackV2(t, t.TempDir(), "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n")
	f := &fakeRegistry{}
	f.signed("app", "1.4.2", keyA)
	if _, err := WriteLock(t.Context(), f, st, Options{}); err != nil {
		t.Fatal(err)
	}
	a := f.repos["registry.example/addons/app"]["1.4.2"]
	a.Signers = []Signer{keyB}
	f.repos["registry.example/addons/app"]["1.4.2"] = a
	l, err := UpdateLock(t.Context(), f, st, nil, Options{})
	if err != nil || l.Addons[0].Signers[0].KeyID != keyB.KeyID {
		t.Fatalf("same digest, signed by B now: %v %+v", err, l)
	}
	f.signed("app", "1.4.2", keyB, fork) // pushed again by B (locked now) and fork: another digest, an overlap
	if _, err = UpdateLock(t.Context(), f, st, nil, Options{}); err != nil {
		t.Fatalf("re-pushed, signers overlap: %v", err)
	}
	f.signed("app", "1.4.2", ci) // and again, by ci alone
	_, err = UpdateLock(t.Context(), f, st, nil, Options{})
	if !errors.Is(err, ErrSignerChange) || !strings.Contains(err.Error(), "app 1.4.2 → 1.4.2 (sha256:") {
		t.Fatalf("got %v, want the re-pushed 1.4.2 refused", err)
	}
}

// TestUpdateLockUnverifiedKeepsLineage (review item 3): a run that
// verifies nothing (--offline, --insecure-skip-verify: the artifacts come
// back without signers) keeps the recorded signers of an entry whose
// digest stays, byte for byte, and refuses to move one; so a later run
// that verifies still holds the new artifact to the old signers.
func TestUpdateLockUnverifiedKeepsLineage(t *testing.T) {
	st := writeStackV2(t, t.TempDir(), "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n")
	f := &fakeRegistry{}
	f.signed("app", "1.4.2", keyA)
	if _, err := WriteLock(t.Context(), f, st, Options{}); err != nil {
		t.Fatal(err)
	}
	locked, _ := os.ReadFile(LockPath(st.Path))
	repo := f.repos["registry.example/addons/app"]
	signed := repo["1.4.2"]
	unverified := signed
	unverified.Signers = nil
	repo["1.4.2"] = unverified // same digest, nothing verified
	if _, err := UpdateLock(t.Context(), f, st, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(LockPath(st.Path)); string(after) != string(locked) {
		t.Fatalf("an unverified re-lock rewrote the lock:\n%s\nwas:\n%s", after, locked)
	}
	f.signed("app", "1.5.0") // a new digest, nothing verified
	_, err := UpdateLock(t.Context(), f, st, nil, Options{})
	if !errors.Is(err, ErrSignerChange) || errdef.ClassOf(err) != errdef.ErrVerification ||
		!strings.Contains(err.Error(), "app 1.4.2 → 1.5.0: not verified in this run: lineage cannot be checked") {
		t.Fatalf("got %v, want the unverified move refused", err)
	}
	if after, _ := os.ReadFile(LockPath(st.Path)); string(after) != string(locked) {
		t.Fatal("a refused update rewrote the lock")
	}
	f.signed("app", "1.5.0", keyB) // verified now, by another key
	if _, err := UpdateLock(t.Context(), f, st, nil, Options{}); !errors.Is(err, ErrSignerChange) {
		t.Fatalf("got %v, want the move to key b refused", err)
	}
}

func TestSameLineage(t *testing.T) {
	const gh = "https://token.actions.githubusercontent.com"
	wf := "https://github.com/example/app/.github/workflows/release.yml"
	id := func(subject string) Signer { return Signer{Issuer: gh, Subject: subject} }
	tests := []struct {
		name string
		a, b Signer
		same bool
	}{
		{"two tags of one workflow", id(wf + "@refs/tags/v1.0.0"), id(wf + "@refs/tags/v1.1.0"), true},
		{"a tag and a branch of one workflow", id(wf + "@refs/tags/v1.0.0"), id(wf + "@refs/heads/main"), true},
		{"the ref against none", id(wf + "@refs/tags/v1.0.0"), id(wf), true},
		{"another workflow", id(wf + "@refs/tags/v1.0.0"), id("https://github.com/example/app/.github/workflows/nightly.yml@refs/tags/v1.0.0"), false},
		{"another repository", id(wf + "@refs/tags/v1.0.0"), id("https://github.com/fork/app/.github/workflows/release.yml@refs/tags/v1.0.0"), false},
		{"another issuer", id(wf + "@refs/tags/v1.0.0"), Signer{Issuer: "https://issuer.example", Subject: wf + "@refs/tags/v1.0.0"}, false},
		{"e-mail addresses are whole", id("alice@example.com"), id("bob@example.com"), false},
		{"the same e-mail address", id("alice@example.com"), id("alice@example.com"), true},
		{"only the last @ cuts", id(wf + "@refs/tags/a@refs/tags/b"), id(wf + "@refs/tags/a@refs/tags/c"), true},
		{"a last @ not before refs/ cuts nothing", id(wf + "@refs/tags/a@b"), id(wf + "@refs/tags/a@c"), false},
		{"refs must follow the @ directly", id(wf + "@xrefs/tags/a"), id(wf + "@xrefs/tags/b"), false},
		{"case matters", id(wf + "@refs/tags/a"), id(strings.ToUpper(wf) + "@refs/tags/a"), false},
		{"keys by id", keyA, Signer{KeyID: keyA.KeyID}, true},
		{"another key", keyA, keyB, false},
		{"a key is no identity", keyA, ci, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameLineage(tt.a, tt.b); got != tt.same {
				t.Errorf("sameLineage(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.same)
			}
			if got := sameLineage(tt.b, tt.a); got != tt.same {
				t.Errorf("sameLineage is not symmetric for %v, %v", tt.a, tt.b)
			}
		})
	}
}
