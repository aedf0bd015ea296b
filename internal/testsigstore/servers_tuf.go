package testsigstore

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// TUFOptions shape a TUFRepository's metadata, to exercise a client's
// refusals.
type TUFOptions struct {
	// TimestampExpires is when timestamp.json expires (default: a day
	// from now); a past time serves expired metadata.
	TimestampExpires time.Time
	// ForeignTimestampKey signs timestamp.json with a key the root does
	// not list.
	ForeignTimestampKey bool
	// TLS serves over HTTPS with httptest's certificate (CertPEM).
	TLS bool
}

// TUFRepository is a TUF repository on loopback laid out as Sigstore's TUF
// mirror (tuf-repo-cdn.sigstore.dev) serves its trusted root: one ed25519
// key per top-level role, consistent snapshots (N.root.json,
// N.snapshot.json, N.targets.json, timestamp.json), targets under
// targets/<sha256>.<name>. It is built with go-tuf's own metadata package,
// so what a client accepts is real TUF metadata.
type TUFRepository struct {
	// URL is the repository's base URL (http://127.0.0.1:PORT, https with
	// TUFOptions.TLS).
	URL string
	// Root is 1.root.json, the initial root a client trusts.
	Root []byte
	// CertPEM is the server's certificate with TUFOptions.TLS, the CA a
	// client must trust to reach it.
	CertPEM []byte

	mu    sync.Mutex
	files map[string][]byte
}

// StartTUFRepository serves targets (name → content) for the life of t.
func StartTUFRepository(t testing.TB, targets map[string][]byte, o TUFOptions) *TUFRepository {
	t.Helper()
	files, root, err := tufFiles(targets, o)
	if err != nil {
		t.Fatalf("test TUF repository: %v", err)
	}
	r := &TUFRepository{Root: root, files: files}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	if o.TLS {
		srv.StartTLS()
		r.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// RootFile writes Root to a root.json in a temporary directory of t.
func (r *TUFRepository) RootFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(p, r.Root, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ReplaceTarget serves content in place of the target name, under the path
// its signed metadata names: a tampered mirror.
func (r *TUFRepository) ReplaceTarget(name string, content []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.files {
		if strings.HasPrefix(p, "targets/") && strings.HasSuffix(p, "."+name) {
			r.files[p] = content
		}
	}
}

// Serve serves content at path (relative to URL, e.g. "timestamp.json"),
// in place of what was there.
func (r *TUFRepository) Serve(path string, content []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[path] = content
}

func (r *TUFRepository) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	b, ok := r.files[strings.TrimPrefix(req.URL.Path, "/")]
	r.mu.Unlock()
	if !ok || req.Method != http.MethodGet {
		http.NotFound(w, req)
		return
	}
	_, _ = w.Write(b)
}

// tufFiles builds and signs the repository's files (path → bytes) and
// returns them with 1.root.json.
func tufFiles(targets map[string][]byte, o TUFOptions) (map[string][]byte, []byte, error) {
	expires := time.Now().Add(24 * time.Hour)
	tsExpires := o.TimestampExpires
	if tsExpires.IsZero() {
		tsExpires = expires
	}
	files := map[string][]byte{}
	tm := metadata.Targets(expires)
	for name, b := range targets {
		tf, err := metadata.TargetFile().FromBytes(name, b, "sha256")
		if err != nil {
			return nil, nil, err
		}
		tm.Signed.Targets[name] = tf
		sum := sha256.Sum256(b)
		files["targets/"+hex.EncodeToString(sum[:])+"."+name] = b
	}
	sm := metadata.Snapshot(expires)
	ts := metadata.Timestamp(tsExpires)
	rm := metadata.Root(expires)
	signers := map[string]signature.Signer{}
	for _, role := range []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP} {
		pub, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			return nil, nil, err
		}
		k, err := metadata.KeyFromPublicKey(pub)
		if err != nil {
			return nil, nil, err
		}
		if err := rm.Signed.AddKey(k, role); err != nil {
			return nil, nil, err
		}
		if signers[role], err = signature.LoadSigner(priv, crypto.Hash(0)); err != nil {
			return nil, nil, err
		}
	}
	if o.ForeignTimestampKey {
		_, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			return nil, nil, err
		}
		if signers[metadata.TIMESTAMP], err = signature.LoadSigner(priv, crypto.Hash(0)); err != nil {
			return nil, nil, err
		}
	}
	// Sign in dependency order: targets, then the snapshot naming its
	// version, then the timestamp naming the snapshot's.
	tb, err := signed(tm, signers[metadata.TARGETS])
	if err != nil {
		return nil, nil, err
	}
	files[fmt.Sprintf("%d.targets.json", tm.Signed.Version)] = tb
	sm.Signed.Meta["targets.json"] = metadata.MetaFile(tm.Signed.Version)
	sb, err := signed(sm, signers[metadata.SNAPSHOT])
	if err != nil {
		return nil, nil, err
	}
	files[fmt.Sprintf("%d.snapshot.json", sm.Signed.Version)] = sb
	ts.Signed.Meta["snapshot.json"] = metadata.MetaFile(sm.Signed.Version)
	if files["timestamp.json"], err = signed(ts, signers[metadata.TIMESTAMP]); err != nil {
		return nil, nil, err
	}
	rb, err := signed(rm, signers[metadata.ROOT])
	if err != nil {
		return nil, nil, err
	}
	files["1.root.json"] = rb
	return files, rb, nil
}

// signed signs m with s and returns its canonical bytes.
func signed[T metadata.Roles](m *metadata.Metadata[T], s signature.Signer) ([]byte, error) {
	if _, err := m.Sign(s); err != nil {
		return nil, err
	}
	return m.ToBytes(false)
}
