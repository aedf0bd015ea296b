package testsigstore

import (
	"crypto"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	rekortilespb "github.com/sigstore/rekor-tiles/v2/pkg/generated/protobuf"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
)

// RekorV2 is a loopback Rekor v2 (tile-based) log serving POST
// /api/v2/log/entries as rekor-tiles does: a CreateEntryRequest holding a
// hashedrekord v0.0.2 request is validated (signature included) by
// rekor-tiles' own entry type, appended to the log's Merkle tree, and
// answered with a TransparencyLogEntry carrying an inclusion proof under a
// checkpoint signed for RekorV2Origin, no integrated time and no signed
// entry timestamp. Like the public instance, it refuses DSSE requests:
// sigstore-go v1.2 and cosign v3.1 log DSSE envelopes as hashedrekord
// entries over the envelope's PAE.
//
// URL is where it listens; a trusted root names it by RekorV2URL (whose
// host is the checkpoints' origin), so that what it logs verifies against
// ss's trusted root with RootOptions.RekorV2.
type RekorV2 struct {
	URL   string
	LogID string // hex SHA-256 of the log key's DER public key

	signer signature.Signer
	mu     sync.Mutex
	tree   v2Tree
}

// NewRekorV2 starts a test Rekor v2 log for the life of t.
func NewRekorV2(t testing.TB, ss *Sigstore) *RekorV2 {
	t.Helper()
	signer, err := signature.LoadSigner(ss.rekorV2Key, crypto.SHA256)
	if err != nil {
		t.Fatalf("test Rekor v2: %v", err)
	}
	r := &RekorV2{LogID: LogID(ss.RekorV2PublicKey()), signer: signer}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v2/log/entries", r.create)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Entries returns the canonical bodies logged so far.
func (r *RekorV2) Entries() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.tree.bodies...)
}

func (r *RekorV2) create(w http.ResponseWriter, req *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(req.Body, 4<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var cer rekortilespb.CreateEntryRequest
	if err := protojson.Unmarshal(raw, &cer); err != nil {
		http.Error(w, "create entry request: "+err.Error(), http.StatusBadRequest)
		return
	}
	hr := cer.GetHashedRekordRequestV002()
	if hr == nil {
		http.Error(w, "only hashedrekord v0.0.2 entries are accepted", http.StatusBadRequest)
		return
	}
	body, err := canonicalV2Body(hr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	index := r.tree.add(body)
	tle, err := r.tree.entry(req.Context(), index, RekorV2Origin, r.signer)
	r.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out, err := protojson.Marshal(tle)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(out)
}
