package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/cosign/v2/pkg/cosign"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	"github.com/sigstore/cosign/v2/pkg/types"
	sigdsse "github.com/sigstore/sigstore/pkg/signature/dsse"
	sigopts "github.com/sigstore/sigstore/pkg/signature/options"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"golang.org/x/sync/errgroup"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

type checker struct {
	t       Target
	subject ocispec.Descriptor
	scope   *Scope
	now     time.Time
	maxBlob int64
}

// inFlight bounds the reads one verification has in flight at once: the
// bundle manifests listed, then the candidates' blobs.
const inFlight = 4

// checkAll examines the candidates, a few at a time (each fetches its
// blob), and returns the first registry failure.
func (ck checker) checkAll(ctx context.Context, cands []candidate) error {
	errs := make([]error, len(cands))
	var g errgroup.Group
	g.SetLimit(inFlight)
	for i := range cands {
		g.Go(func() error {
			errs[i] = ck.check(ctx, &cands[i])
			return nil // every candidate gets its verdict
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// check examines one candidate and records its verdict. It returns an error
// only for registry failures, which abort verification.
func (ck checker) check(ctx context.Context, cd *candidate) error {
	if cd.Verdict != "" {
		return nil
	}
	b, known, err := ck.knownPayload(cd)
	if err != nil {
		cd.fail(fmt.Errorf("%s: %w", cd.Location, err))
		return nil
	}
	if !known {
		b, err = ck.t.Client.FetchBlobBytes(ctx, cd.repo, cd.blob, ck.maxBlob)
	}
	switch {
	case errors.Is(err, registry.ErrTooLarge):
		cd.fail(fmt.Errorf("%s: %w: %d bytes, limit %d", cd.Location, ErrBlobTooLarge, cd.blob.Size, ck.maxBlob))
		return nil
	case errors.Is(err, errdef.ErrDigestMismatch), errors.Is(err, errdef.ErrSizeMismatch), errors.Is(err, registry.ErrNotFound):
		cd.fail(fmt.Errorf("%s: %w: %w", cd.Location, ErrMalformed, err))
		return nil
	case err != nil:
		return err
	}
	var key *Key
	var id *Identity
	classic := cd.Format == string(sign.FormatClassic)
	switch {
	case classic && cd.Kind == "signature" && isKeylessLayer(cd.ann):
		id, err = ck.classicKeylessSignature(cd, b)
	case classic && cd.Kind == "signature":
		key, err = ck.classicSignature(ctx, cd, b)
	case classic && isKeylessLayer(cd.ann):
		if id, err = ck.classicKeylessAttestation(cd, b); err == nil {
			err = ck.statementChecks(cd, b, "identity "+id.Name)
		}
	case classic:
		key, err = ck.envelope(ctx, cd, b)
	case isKeylessBundle(b):
		id, err = ck.keylessBundle(cd, b)
	default:
		key, err = ck.keyBundle(cd, b)
	}
	if err == nil && key != nil {
		err = ck.window(key)
	}
	if err != nil {
		cd.fail(fmt.Errorf("%s: %w", cd.Location, err))
		return nil
	}
	cd.Verdict, cd.Blob = Valid, cd.blob.Digest
	if id != nil {
		cd.IdentityName, cd.signer = id.Name, identitySigner(cd.Identity)
		return nil
	}
	cd.KeyID, cd.KeyName, cd.signer = key.Verifier.ID, key.Name, key.Verifier.ID
	return nil
}

// hash is the subject digest in go-containerregistry's type, for cosign's
// claim verifiers.
func (ck checker) hash() v1.Hash {
	h, _ := v1.NewHash(ck.subject.Digest.String())
	return h
}

func (ck checker) classicSignature(ctx context.Context, cd *candidate, pl []byte) (*Key, error) {
	raw, err := base64.StdEncoding.DecodeString(cd.sig)
	if err != nil || cd.sig == "" {
		return nil, fmt.Errorf("%w: missing or undecodable signature annotation", ErrMalformed)
	}
	key := ck.firstKey(func(k *keys.Verifier) bool {
		return k.VerifySignature(bytes.NewReader(raw), bytes.NewReader(pl), sigopts.WithContext(ctx)) == nil
	})
	if key == nil {
		return nil, ck.untrusted()
	}
	return key, ck.simpleClaim(pl, "key "+keys.ShortID(key.Verifier.ID))
}

// simpleClaim checks that a verified simple-signing payload names the
// subject digest; who (the signer) goes in the message.
func (ck checker) simpleClaim(pl []byte, who string) error {
	sig, err := static.NewSignature(pl, "")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	// Always check the claim: the bytes verified, but do they name this digest?
	if err := cosign.SimpleClaimVerifier(sig, ck.hash(), nil); err != nil {
		return fmt.Errorf("%w: %s signed it, but %v (want %s)", ErrDigestClaim, who, err, ck.subject.Digest)
	}
	var sci payload.SimpleContainerImage
	if err := json.Unmarshal(pl, &sci); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if sci.Critical.Type != payload.CosignSignatureType {
		return fmt.Errorf("%w: payload type %q, want %q", ErrPayloadType, sci.Critical.Type, payload.CosignSignatureType)
	}
	return nil
}

// envelope checks a DSSE envelope holding an in-toto statement.
func (ck checker) envelope(ctx context.Context, cd *candidate, env []byte) (*Key, error) {
	var e ssldsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		return nil, fmt.Errorf("%w: DSSE envelope: %w", ErrMalformed, err)
	}
	key := ck.firstKey(func(k *keys.Verifier) bool {
		ev, err := ssldsse.NewEnvelopeVerifier(&sigdsse.VerifierAdapter{SignatureVerifier: k})
		if err != nil {
			return false
		}
		_, err = ev.Verify(ctx, &e)
		return err == nil
	})
	if key == nil {
		return nil, ck.untrusted()
	}
	return key, ck.statementChecks(cd, env, "key "+keys.ShortID(key.Verifier.ID))
}

// statementChecks checks a verified DSSE envelope's in-toto statement: its
// subject is the digest, its predicate type what the storage says and what
// the candidate's kind allows. who (the signer) goes in messages.
func (ck checker) statementChecks(cd *candidate, env []byte, who string) error {
	var e ssldsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		return fmt.Errorf("%w: DSSE envelope: %w", ErrMalformed, err)
	}
	if e.PayloadType != types.IntotoPayloadType {
		return fmt.Errorf("%w: DSSE payload type %q, want %q", ErrPayloadType, e.PayloadType, types.IntotoPayloadType)
	}
	att, err := static.NewAttestation(env)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := cosign.IntotoSubjectClaimVerifier(att, ck.hash(), nil); err != nil {
		return fmt.Errorf("%w: %s signed it, but the statement's subject is not %s (%v)", ErrDigestClaim, who, ck.subject.Digest, err)
	}
	body, err := base64.StdEncoding.DecodeString(e.Payload)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	st, err := parseStatement(body)
	if err != nil {
		return err
	}
	if cd.PredicateType != "" && st.PredicateType != cd.PredicateType {
		return fmt.Errorf("%w: statement says %q, storage says %q", ErrPredicateType, st.PredicateType, cd.PredicateType)
	}
	switch {
	case cd.Kind == "signature" && st.PredicateType != sign.CosignSignPredicateType:
		return fmt.Errorf("%w: signature statement of type %q, want %q", ErrPredicateType, st.PredicateType, sign.CosignSignPredicateType)
	case cd.Kind == "attestation" && st.PredicateType == sign.CosignSignPredicateType:
		cd.Kind = "signature"
	}
	cd.PredicateType, cd.statement = st.PredicateType, st
	if cd.Kind == "signature" {
		cd.PredicateType = ""
	}
	return nil
}

func (ck checker) firstKey(ok func(*keys.Verifier) bool) *Key {
	for i := range ck.scope.Keys {
		if ok(ck.scope.Keys[i].Verifier) {
			return &ck.scope.Keys[i]
		}
	}
	return nil
}

func (ck checker) untrusted() error {
	n := len(distinctKeys(ck.scope.Keys))
	if n == 0 {
		return fmt.Errorf("%w: a key signature, but the scope trusts no keys (only keyless identities)", ErrUntrusted)
	}
	return fmt.Errorf("%w: none of the %d trusted keys verifies it", ErrUntrusted, n)
}

func (ck checker) window(k *Key) error {
	switch {
	case k.NotBefore != nil && ck.now.Before(*k.NotBefore):
		return fmt.Errorf("%w: key %q (%s) is valid from %s, now is %s", ErrKeyWindow, k.Name, keys.ShortID(k.Verifier.ID), k.NotBefore.UTC().Format(time.RFC3339), ck.now.UTC().Format(time.RFC3339))
	case k.NotAfter != nil && ck.now.After(*k.NotAfter):
		return fmt.Errorf("%w: key %q (%s) expired at %s, now is %s", ErrKeyWindow, k.Name, keys.ShortID(k.Verifier.ID), k.NotAfter.UTC().Format(time.RFC3339), ck.now.UTC().Format(time.RFC3339))
	}
	return nil
}

// statement is the part of an in-toto statement verification reads.
type statement struct {
	Type          string          `json:"_type"`
	PredicateType string          `json:"predicateType"`
	Subject       json.RawMessage `json:"subject"`
	Predicate     json.RawMessage `json:"predicate"`
}

func parseStatement(b []byte) (*statement, error) {
	var st statement
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%w: in-toto statement: %w", ErrMalformed, err)
	}
	if !strings.HasPrefix(st.Type, "https://in-toto.io/Statement/") {
		return nil, fmt.Errorf("%w: statement _type %q is not an in-toto statement", ErrPayloadType, st.Type)
	}
	return &st, nil
}
