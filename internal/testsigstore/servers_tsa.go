package testsigstore

import (
	"crypto"
	"encoding/asn1"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/digitorus/timestamp"
)

// TSA is a loopback RFC 3161 timestamp authority answering POSTs of
// application/timestamp-query at URL (any path), as Sigstore's
// timestamp-authority does at /api/v1/timestamp.
type TSA struct {
	URL string
}

// NewTSA starts a test TSA for the life of t, signing with ss's TSA
// certificate and key (its chain embedded in each response).
func NewTSA(t testing.TB, ss *Sigstore) *TSA {
	t.Helper()
	cert, chain := ss.TSAChain[0], ss.TSAChain[1:]
	h := func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST a timestamp query", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req, err := timestamp.ParseRequest(body)
		if err != nil {
			http.Error(w, "timestamp query: "+err.Error(), http.StatusBadRequest)
			return
		}
		ts := timestamp.Timestamp{
			HashAlgorithm:     req.HashAlgorithm,
			HashedMessage:     req.HashedMessage,
			Nonce:             req.Nonce,
			Time:              time.Now().UTC(),
			SerialNumber:      ss.nextSerial(),
			Policy:            asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2},
			Certificates:      chain,
			AddTSACertificate: req.Certificates,
			ExtraExtensions:   req.Extensions,
		}
		resp, err := ts.CreateResponseWithOpts(cert, ss.tsaKey, crypto.SHA256)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/timestamp-reply")
		_, _ = w.Write(resp)
	}
	srv := httptest.NewServer(http.HandlerFunc(h))
	t.Cleanup(srv.Close)
	return &TSA{URL: srv.URL + "/api/v1/timestamp"}
}
