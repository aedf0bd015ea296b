package testsigstore

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// RootFault is what a TUFRepository serves as 2.root.json, the root a
// client walks to after the initial one.
type RootFault int

const (
	// RootCurrent serves no 2.root.json: 1.root.json is current.
	RootCurrent RootFault = iota
	// RootRollback serves as 2.root.json a root that states version 1,
	// signed by the repository's root key.
	RootRollback
	// RootForeign serves as 2.root.json a version 2 that replaces the root
	// key with one root 1 does not list, signed by that key only: a root
	// signed by the wrong keys.
	RootForeign
)

// tufFiles builds and signs the repository's files (path → bytes) and
// returns them with 1.root.json.
func tufFiles(targets map[string][]byte, o TUFOptions) (map[string][]byte, []byte, error) {
	expires := time.Now().Add(24 * time.Hour)
	or := func(t time.Time) time.Time {
		if t.IsZero() {
			return expires
		}
		return t
	}
	files := map[string][]byte{}
	tm := metadata.Targets(or(o.TargetsExpires))
	for name, b := range targets {
		tf, err := metadata.TargetFile().FromBytes(name, b, "sha256")
		if err != nil {
			return nil, nil, err
		}
		tm.Signed.Targets[name] = tf
		sum := sha256.Sum256(b)
		files["targets/"+hex.EncodeToString(sum[:])+"."+name] = b
	}
	sm := metadata.Snapshot(or(o.SnapshotExpires))
	ts := metadata.Timestamp(or(o.TimestampExpires))
	rm := metadata.Root(or(o.RootExpires))
	signers := map[string]signature.Signer{}
	var rootKey *metadata.Key
	for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		k, s, err := tufKey()
		if err != nil {
			return nil, nil, err
		}
		if err := rm.Signed.AddKey(k, role); err != nil {
			return nil, nil, err
		}
		signers[role] = s
		if role == metadata.ROOT {
			rootKey = k
		}
	}
	if o.ForeignTimestampKey {
		_, s, err := tufKey()
		if err != nil {
			return nil, nil, err
		}
		signers[metadata.TIMESTAMP] = s
	}
	// Sign in dependency order: targets, then the snapshot naming its
	// version, then the timestamp naming the snapshot's. A stale role is
	// named as version 2 and served as such, but says version 1 inside.
	tb, err := signed(tm, signers[metadata.TARGETS])
	if err != nil {
		return nil, nil, err
	}
	tv := named(tm.Signed.Version, o.StaleTargets)
	files[fmt.Sprintf("%d.targets.json", tv)] = tb
	sm.Signed.Meta["targets.json"] = metaFile(tv, tb, o.MetaHashes)
	sb, err := signed(sm, signers[metadata.SNAPSHOT])
	if err != nil {
		return nil, nil, err
	}
	sv := named(sm.Signed.Version, o.StaleSnapshot)
	files[fmt.Sprintf("%d.snapshot.json", sv)] = sb
	ts.Signed.Meta["snapshot.json"] = metaFile(sv, sb, o.MetaHashes)
	if files["timestamp.json"], err = signed(ts, signers[metadata.TIMESTAMP]); err != nil {
		return nil, nil, err
	}
	rb, err := signed(rm, signers[metadata.ROOT])
	if err != nil {
		return nil, nil, err
	}
	files["1.root.json"] = rb
	if o.NextRoot != RootCurrent {
		if files["2.root.json"], err = nextRoot(rb, rootKey, signers[metadata.ROOT], o.NextRoot); err != nil {
			return nil, nil, err
		}
	}
	return files, rb, nil
}

// nextRoot makes the hostile 2.root.json f names from root 1 (rb).
func nextRoot(rb []byte, rootKey *metadata.Key, rootSigner signature.Signer, f RootFault) ([]byte, error) {
	next, err := metadata.Root().FromBytes(rb)
	if err != nil {
		return nil, err
	}
	next.ClearSignatures()
	next.Signed.Expires = next.Signed.Expires.Add(time.Hour) // other bytes than root 1
	s := rootSigner
	if f == RootForeign {
		next.Signed.Version = 2
		k, foreign, err := tufKey()
		if err != nil {
			return nil, err
		}
		oldID, err := rootKey.ID()
		if err != nil {
			return nil, err
		}
		if err := next.Signed.RevokeKey(oldID, metadata.ROOT); err != nil {
			return nil, err
		}
		if err := next.Signed.AddKey(k, metadata.ROOT); err != nil {
			return nil, err
		}
		s = foreign
	}
	return signed(next, s)
}

// named is the version a stale role is named by: one ahead of the
// version it states.
func named(version int64, stale bool) int64 {
	if stale {
		return version + 1
	}
	return version
}

// metaFile names version of a role's metadata b, with its length and
// SHA-256 when withHashes (as Sigstore's timestamp names its snapshot).
func metaFile(version int64, b []byte, withHashes bool) *metadata.MetaFiles {
	m := metadata.MetaFile(version)
	if withHashes {
		sum := sha256.Sum256(b)
		m.Length, m.Hashes = int64(len(b)), metadata.Hashes{"sha256": sum[:]}
	}
	return m
}

// tufKey makes an ed25519 TUF key and its signer.
func tufKey() (*metadata.Key, signature.Signer, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, nil, err
	}
	k, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	s, err := signature.LoadSigner(priv, crypto.Hash(0))
	return k, s, err
}

// signed signs m with s and returns its canonical bytes.
func signed[T metadata.Roles](m *metadata.Metadata[T], s signature.Signer) ([]byte, error) {
	if _, err := m.Sign(s); err != nil {
		return nil, err
	}
	return m.ToBytes(false)
}
