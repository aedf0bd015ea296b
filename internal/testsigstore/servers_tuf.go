package testsigstore

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TUFOptions shape a TUFRepository's metadata, to exercise a client's
// refusals.
type TUFOptions struct {
	// TimestampExpires, SnapshotExpires, TargetsExpires and RootExpires
	// are when each role's metadata expires (default: a day from now); a
	// past time serves expired metadata, a frozen mirror.
	TimestampExpires, SnapshotExpires, TargetsExpires, RootExpires time.Time
	// ForeignTimestampKey signs timestamp.json with a key the root does
	// not list.
	ForeignTimestampKey bool
	// StaleSnapshot: the timestamp names snapshot version 2, and
	// 2.snapshot.json is version 1, validly signed: a snapshot rolled back
	// under a fresh timestamp. StaleTargets does the same to targets.json
	// under the snapshot.
	StaleSnapshot, StaleTargets bool
	// MetaHashes records the length and SHA-256 of the snapshot in the
	// timestamp and of targets.json in the snapshot, as Sigstore's
	// repository does (default: versions only).
	MetaHashes bool
	// NextRoot is the 2.root.json served, if any.
	NextRoot RootFault
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

	mu      sync.Mutex
	files   map[string][]byte
	faults  map[string]fault
	written map[string]int64
	done    chan struct{} // closed when the test ends: stalls give up
}

// StartTUFRepository serves targets (name → content) for the life of t.
func StartTUFRepository(t testing.TB, targets map[string][]byte, o TUFOptions) *TUFRepository {
	t.Helper()
	files, root, err := tufFiles(targets, o)
	if err != nil {
		t.Fatalf("test TUF repository: %v", err)
	}
	r := &TUFRepository{Root: root, files: files, faults: map[string]fault{}, written: map[string]int64{}, done: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	if o.TLS {
		srv.StartTLS()
		r.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	t.Cleanup(func() { // first: Close waits for stalled and endless handlers
		close(r.done)
		srv.CloseClientConnections()
	})
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

// File returns the bytes served at path (nil when none): to serve them
// from another repository, mixing and matching.
func (r *TUFRepository) File(path string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.files[path]
}

// TargetPath returns the path the target name is served under.
func (r *TUFRepository) TargetPath(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.files {
		if strings.HasPrefix(p, "targets/") && strings.HasSuffix(p, "."+name) {
			return p
		}
	}
	return ""
}

func (r *TUFRepository) serve(w http.ResponseWriter, req *http.Request) {
	path := strings.TrimPrefix(req.URL.Path, "/")
	r.mu.Lock()
	b, ok := r.files[path]
	f, faulty := r.faults[path]
	r.mu.Unlock()
	if !ok || req.Method != http.MethodGet {
		http.NotFound(w, req)
		return
	}
	if faulty {
		r.serveFault(w, req, path, b, f)
		return
	}
	_, _ = w.Write(b)
}
