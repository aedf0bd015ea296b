package testsigstore

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/go-openapi/runtime"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/types"
	_ "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1"         // the entry kinds a
	_ "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1" // test log accepts,
	_ "github.com/sigstore/rekor/pkg/types/intoto/v0.0.2"       // as sigstore-go and
	rekorutil "github.com/sigstore/rekor/pkg/util"              // cosign write them
	"github.com/sigstore/sigstore/pkg/signature"
)

// RekorTreeID is the tree id of the test log's checkpoints ("HOST - ID").
const RekorTreeID = 1193050959916656506

// Rekor is a loopback Rekor v1 log serving POST /api/v1/log/entries. Each
// entry is validated and canonicalised by Rekor's own entry types, appended
// to an RFC 6962 Merkle tree, and answered with a signed entry timestamp and
// an inclusion proof under a signed checkpoint, all by the log key.
type Rekor struct {
	URL string
	// LogID is the hex SHA-256 of the log key's DER public key.
	LogID string

	signer signature.Signer
	now    func() time.Time

	mu     sync.Mutex
	leaves [][]byte // leaf hashes
	bodies [][]byte // canonical entries
}

// NewRekor starts a test log signing with ss's Rekor key for the life of t.
func NewRekor(t testing.TB, ss *Sigstore) *Rekor {
	t.Helper()
	signer, err := signature.LoadSigner(ss.rekorKey, crypto.SHA256)
	if err != nil {
		t.Fatalf("test Rekor: %v", err)
	}
	r := &Rekor{LogID: LogID(ss.RekorPublicKey()), signer: signer, now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/log/entries", r.create)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Entries returns the canonical bodies logged so far.
func (r *Rekor) Entries() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

func (r *Rekor) create(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	pe, err := models.UnmarshalProposedEntry(io.LimitReader(req.Body, 4<<20), runtime.JSONConsumer())
	if err != nil {
		http.Error(w, "proposed entry: "+err.Error(), http.StatusBadRequest)
		return
	}
	entry, err := types.CreateVersionedEntry(pe)
	if err != nil {
		http.Error(w, "entry: "+err.Error(), http.StatusBadRequest)
		return
	}
	body, err := types.CanonicalizeEntry(ctx, entry)
	if err != nil {
		http.Error(w, "entry: "+err.Error(), http.StatusBadRequest)
		return
	}
	anon, uuid, err := r.append(ctx, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(models.LogEntry{uuid: *anon})
}

// append logs body and returns its entry as Rekor answers it.
func (r *Rekor) append(ctx context.Context, body []byte) (*models.LogEntryAnon, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	leaf := rfc6962Leaf(body)
	r.leaves = append(r.leaves, leaf)
	r.bodies = append(r.bodies, body)
	index := int64(len(r.leaves) - 1)
	size := len(r.leaves)
	integrated := r.now().Unix()
	anon := &models.LogEntryAnon{
		Body:           base64.StdEncoding.EncodeToString(body),
		IntegratedTime: &integrated,
		LogID:          &r.LogID,
		LogIndex:       &index,
	}
	set, err := r.signEntry(anon)
	if err != nil {
		return nil, "", err
	}
	root := rfc6962Root(r.leaves)
	var hashes []string
	for _, h := range rfc6962Path(int(index), r.leaves) {
		hashes = append(hashes, hex.EncodeToString(h))
	}
	cp, err := rekorutil.CreateAndSignCheckpoint(ctx, "rekor.test", RekorTreeID, uint64(size), root, r.signer)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint: %w", err)
	}
	rootHex, treeSize, cpStr := hex.EncodeToString(root), int64(size), string(cp)
	anon.Verification = &models.LogEntryAnonVerification{
		SignedEntryTimestamp: set,
		InclusionProof: &models.InclusionProof{
			LogIndex: &index, TreeSize: &treeSize, RootHash: &rootHex, Hashes: hashes, Checkpoint: &cpStr,
		},
	}
	if anon.Verification.InclusionProof.Hashes == nil {
		anon.Verification.InclusionProof.Hashes = []string{}
	}
	return anon, fmt.Sprintf("%016x%s", RekorTreeID, hex.EncodeToString(leaf)), nil
}

// signEntry is Rekor's signed entry timestamp: the log key's signature
// over the canonical JSON of body, integratedTime, logID and logIndex.
func (r *Rekor) signEntry(e *models.LogEntryAnon) ([]byte, error) {
	raw, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	canon, err := jsoncanonicalizer.Transform(raw)
	if err != nil {
		return nil, err
	}
	return r.signer.SignMessage(bytes.NewReader(canon))
}

// RFC 6962 Merkle tree hashing, as Rekor's Trillian backend does it.
func rfc6962Leaf(b []byte) []byte {
	h := sha256.Sum256(append([]byte{0}, b...))
	return h[:]
}

func rfc6962Node(l, r []byte) []byte {
	h := sha256.New()
	h.Write([]byte{1})
	h.Write(l)
	h.Write(r)
	return h.Sum(nil)
}

// split is the largest power of two smaller than n (n > 1).
func split(n int) int {
	k := 1
	for k<<1 < n {
		k <<= 1
	}
	return k
}

func rfc6962Root(leaves [][]byte) []byte {
	if len(leaves) == 1 {
		return leaves[0]
	}
	k := split(len(leaves))
	return rfc6962Node(rfc6962Root(leaves[:k]), rfc6962Root(leaves[k:]))
}

// rfc6962Path is the audit path of leaf m (RFC 6962 section 2.1.1).
func rfc6962Path(m int, leaves [][]byte) [][]byte {
	if len(leaves) <= 1 {
		return nil
	}
	k := split(len(leaves))
	if m < k {
		return append(rfc6962Path(m, leaves[:k]), rfc6962Root(leaves[k:]))
	}
	return append(rfc6962Path(m-k, leaves[k:]), rfc6962Root(leaves[:k]))
}
