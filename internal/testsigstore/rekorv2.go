package testsigstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	rekortilespb "github.com/sigstore/rekor-tiles/v2/pkg/generated/protobuf"
	tilesnote "github.com/sigstore/rekor-tiles/v2/pkg/note"
	"github.com/sigstore/rekor-tiles/v2/pkg/types/hashedrekord"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
	"google.golang.org/protobuf/encoding/protojson"
)

// RekorV2URL is the test Sigstore's Rekor v2 (tile-based) log as a trusted
// root names it (its baseUrl). Its host name is the origin line of the
// log's checkpoints, which is how a verifier finds the note key to check
// them with: a checkpoint signed under another origin does not verify.
const (
	RekorV2URL    = "https://log2025-1.rekor.test.invalid"
	RekorV2Origin = "log2025-1.rekor.test.invalid"
)

// v2Fillers is how many other entries the in-memory log holds besides the
// one signed (SignOptions.RekorV2), so that inclusion proofs have hashes to
// truncate and reorder: the signed entry is leaf v2Fillers-2 of v2Fillers+1.
const v2Fillers = 6

// RekorV2PublicKey returns the Rekor v2 log's public key.
func (s *Sigstore) RekorV2PublicKey() crypto.PublicKey { return s.rekorV2Key.Public() }

// hashedRekordV2 is the canonical body of a Rekor v2 hashedrekord v0.0.2
// entry for a signature sig over digest (SHA-256) by cert's key, built
// (and the signature checked) by rekor-tiles' own entry type, as the log
// does it.
func hashedRekordV2(digest, sig []byte, cert *x509.Certificate) ([]byte, error) {
	req := &rekortilespb.HashedRekordRequestV002{
		Digest: digest,
		Signature: &rekortilespb.Signature{Content: sig, Verifier: &rekortilespb.Verifier{
			Verifier:   &rekortilespb.Verifier_X509Certificate{X509Certificate: &protocommon.X509Certificate{RawBytes: cert.Raw}},
			KeyDetails: protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256,
		}},
	}
	return canonicalV2Body(req)
}

// canonicalV2Body validates a hashedrekord v0.0.2 request (signature
// included) and returns the entry's canonical JSON: the bytes the log's
// leaf hash covers.
func canonicalV2Body(req *rekortilespb.HashedRekordRequestV002) ([]byte, error) {
	reg, err := signature.NewAlgorithmRegistryConfig([]protocommon.PublicKeyDetails{
		protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256, protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_384,
		protocommon.PublicKeyDetails_PKIX_ED25519_PH,
	})
	if err != nil {
		return nil, err
	}
	entry, err := hashedrekord.ToLogEntry(req, reg)
	if err != nil {
		return nil, fmt.Errorf("hashedrekord v0.0.2: %w", err)
	}
	raw, err := protojson.Marshal(entry)
	if err != nil {
		return nil, err
	}
	return jsoncanonicalizer.Transform(raw)
}

// v2Tree is a Rekor v2 log's Merkle tree (RFC 6962 hashing, as tlog-tiles).
type v2Tree struct {
	leaves [][]byte
	bodies [][]byte
}

// add appends body and returns its index.
func (t *v2Tree) add(body []byte) int {
	t.leaves = append(t.leaves, rfc6962Leaf(body))
	t.bodies = append(t.bodies, body)
	return len(t.leaves) - 1
}

// entry returns leaf index as a bundle's TransparencyLogEntry at the
// tree's current size: no integrated time, no signed entry timestamp, an
// inclusion proof under a checkpoint signed by signer for origin.
func (t *v2Tree) entry(ctx context.Context, index int, origin string, signer signature.Signer) (*protorekor.TransparencyLogEntry, error) {
	size := len(t.leaves)
	root := rfc6962Root(t.leaves)
	ns, err := tilesnote.NewNoteSigner(ctx, origin, signer)
	if err != nil {
		return nil, err
	}
	cp := log.Checkpoint{Origin: origin, Size: uint64(size), Hash: root}
	signed, err := note.Sign(&note.Note{Text: string(cp.Marshal())}, ns)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	pub, err := signer.PublicKey()
	if err != nil {
		return nil, err
	}
	id, _ := hex.DecodeString(LogID(pub))
	path := rfc6962Path(index, t.leaves)
	if path == nil {
		path = [][]byte{}
	}
	return &protorekor.TransparencyLogEntry{
		LogIndex:    int64(index),
		LogId:       &protocommon.LogId{KeyId: id},
		KindVersion: &protorekor.KindVersion{Kind: "hashedrekord", Version: "0.0.2"},
		InclusionProof: &protorekor.InclusionProof{
			LogIndex: int64(index), RootHash: root, TreeSize: int64(size), Hashes: path,
			Checkpoint: &protorekor.Checkpoint{Envelope: string(signed)},
		},
		CanonicalizedBody: t.bodies[index],
	}, nil
}

// newV2Entry logs a signature sig over digest by cert's key in a fresh
// in-memory Rekor v2 log holding v2Fillers other entries, with the
// checkpoint signed by logKey (the Rekor v2 key, or a foreign one) while
// the entry still names the Rekor v2 log's id.
func (s *Sigstore) newV2Entry(digest, sig []byte, cert *x509.Certificate, logKey *ecdsa.PrivateKey) (*protorekor.TransparencyLogEntry, error) {
	body, err := hashedRekordV2(digest, sig, cert)
	if err != nil {
		return nil, err
	}
	var t v2Tree
	index := -1
	for i := 0; i <= v2Fillers; i++ {
		if i == v2Fillers-2 {
			index = t.add(body)
			continue
		}
		filler := make([]byte, 32)
		if _, err := rand.Read(filler); err != nil {
			return nil, err
		}
		t.add(filler)
	}
	signer, err := signature.LoadECDSASignerVerifier(logKey, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	e, err := t.entry(context.Background(), index, RekorV2Origin, signer)
	if err != nil {
		return nil, err
	}
	id, _ := hex.DecodeString(LogID(s.rekorV2Key.Public()))
	e.LogId.KeyId = id // a foreign key's checkpoint still claims the log
	return e, nil
}
