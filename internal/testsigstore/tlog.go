package testsigstore

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cyberphone/json-canonicalization/go/src/webpki.org/jsoncanonicalizer"
	"github.com/digitorus/timestamp"
	"github.com/go-openapi/runtime"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/rekor/pkg/generated/models"
	"github.com/sigstore/rekor/pkg/pki"
	"github.com/sigstore/rekor/pkg/types"
	"github.com/sigstore/rekor/pkg/types/dsse"
	dssev001 "github.com/sigstore/rekor/pkg/types/dsse/v0.0.1"
	"github.com/sigstore/rekor/pkg/types/hashedrekord"
	hashedrekordv001 "github.com/sigstore/rekor/pkg/types/hashedrekord/v0.0.1"
	"github.com/sigstore/rekor/pkg/util"
	"github.com/sigstore/sigstore/pkg/signature"
)

// logEntry is one Rekor v1 entry with both of its proofs: the signed entry
// timestamp (SET, "inclusion promise") and an inclusion proof in a tree of
// one leaf with a signed checkpoint.
type logEntry struct {
	body           []byte // canonicalized entry
	integratedTime int64
	logID          string // hex
	set            []byte
	kind, version  string
	rootHash       []byte
	checkpoint     string
}

// newEntry logs (kind "hashedrekord" or "dsse") artifact, signed with sig by
// the holder of certPEM, at integrated time at; signer signs the SET and
// the checkpoint (the Rekor key, or a foreign one for refusal tests) while
// the entry still names the Rekor log's id.
func (s *Sigstore) newEntry(kind string, artifact, sig, certPEM []byte, at time.Time, signer *ecdsa.PrivateKey) (*logEntry, error) {
	ctx := context.Background()
	props := types.ArtifactProperties{PublicKeyBytes: [][]byte{certPEM}, PKIFormat: string(pki.X509)}
	version := ""
	switch kind {
	case hashedrekord.KIND:
		sum := sha256.Sum256(artifact)
		props.ArtifactHash = hex.EncodeToString(sum[:])
		props.SignatureBytes = sig
		version = hashedrekordv001.APIVERSION
	case dsse.KIND:
		props.ArtifactBytes = artifact
		version = dssev001.APIVERSION
	default:
		return nil, fmt.Errorf("testsigstore: entry kind %q", kind)
	}
	pe, err := types.NewProposedEntry(ctx, kind, version, props)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: %s entry: %w", kind, err)
	}
	impl, err := types.CreateVersionedEntry(pe)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: %s entry: %w", kind, err)
	}
	can, err := types.CanonicalizeEntry(ctx, impl)
	if err != nil {
		return nil, fmt.Errorf("testsigstore: %s entry: %w", kind, err)
	}
	// The canonical body must parse back, as every verifier will parse it.
	if _, err := models.UnmarshalProposedEntry(bytes.NewReader(can), runtime.JSONConsumer()); err != nil {
		return nil, err
	}
	e := &logEntry{body: can, integratedTime: at.Unix(), logID: LogID(s.rekorKey.Public()), kind: kind, version: version}
	payload, err := json.Marshal(map[string]any{
		"body": base64.StdEncoding.EncodeToString(can), "integratedTime": e.integratedTime,
		"logIndex": 0, "logID": e.logID,
	})
	if err != nil {
		return nil, err
	}
	canon, err := jsoncanonicalizer.Transform(payload)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(canon)
	if e.set, err = ecdsa.SignASN1(randReader, signer, h[:]); err != nil {
		return nil, err
	}
	leaf := sha256.Sum256(append([]byte{0}, can...))
	e.rootHash = leaf[:]
	sv, err := signature.LoadECDSASignerVerifier(signer, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	cp, err := util.CreateAndSignCheckpoint(ctx, "rekor.test.invalid", 1, 1, e.rootHash, sv)
	if err != nil {
		return nil, err
	}
	e.checkpoint = string(cp)
	return e, nil
}

// proto returns the entry as a bundle's TransparencyLogEntry.
func (e *logEntry) proto() *protorekor.TransparencyLogEntry {
	id, _ := hex.DecodeString(e.logID)
	return &protorekor.TransparencyLogEntry{
		LogIndex:          0,
		LogId:             &protocommon.LogId{KeyId: id},
		KindVersion:       &protorekor.KindVersion{Kind: e.kind, Version: e.version},
		IntegratedTime:    e.integratedTime,
		InclusionPromise:  &protorekor.InclusionPromise{SignedEntryTimestamp: e.set},
		InclusionProof:    &protorekor.InclusionProof{LogIndex: 0, RootHash: e.rootHash, TreeSize: 1, Checkpoint: &protorekor.Checkpoint{Envelope: e.checkpoint}},
		CanonicalizedBody: e.body,
	}
}

// rekorBundleJSON returns the entry as cosign's classic
// "dev.sigstore.cosign/bundle" annotation value.
func (e *logEntry) rekorBundleJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"SignedEntryTimestamp": e.set,
		"Payload": map[string]any{
			"body": base64.StdEncoding.EncodeToString(e.body), "integratedTime": e.integratedTime,
			"logIndex": 0, "logID": e.logID,
		},
	})
}

// timestampFor returns an RFC 3161 timestamp response over sig at time at,
// signed by the TSA.
func (s *Sigstore) timestampFor(sig []byte, at time.Time) ([]byte, error) {
	h := sha256.Sum256(sig)
	ts := timestamp.Timestamp{
		HashAlgorithm: crypto.SHA256,
		HashedMessage: h[:],
		Time:          at,
		Policy:        asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 2},
		SerialNumber:  s.nextSerial(),
	}
	return ts.CreateResponseWithOpts(s.TSAChain[0], s.tsaKey, crypto.SHA256)
}
