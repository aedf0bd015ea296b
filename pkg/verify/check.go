package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// checkAll examines the candidates, a few at a time (each fetches its
// blob), and returns the first registry failure.
func (ck checker) checkAll(ctx context.Context, cands []candidate) error {
	const inFlight = 4
	errs := make([]error, len(cands))
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for i := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = ck.check(ctx, &cands[i])
		}()
	}
	wg.Wait()
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
	b, err := ck.t.Client.FetchBlobBytes(ctx, cd.repo, cd.blob, ck.maxBlob)
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
	switch {
	case cd.Format == string(sign.FormatClassic) && cd.Kind == "signature":
		key, err = ck.classicSignature(ctx, cd, b)
	case cd.Format == string(sign.FormatClassic):
		key, err = ck.envelope(ctx, cd, b)
	default:
		var env []byte
		if env, err = bundleEnvelope(b); err == nil {
			key, err = ck.envelope(ctx, cd, env)
		}
	}
	if err == nil {
		err = ck.window(key)
	}
	if err != nil {
		cd.fail(fmt.Errorf("%s: %w", cd.Location, err))
		return nil
	}
	cd.Verdict, cd.KeyID, cd.KeyName = Valid, key.Verifier.ID, key.Name
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
	sig, err := static.NewSignature(pl, cd.sig)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	// Always check the claim: the bytes verified, but do they name this digest?
	if err := cosign.SimpleClaimVerifier(sig, ck.hash(), nil); err != nil {
		return nil, fmt.Errorf("%w: key %s signed it, but %v (want %s)", ErrDigestClaim, keys.ShortID(key.Verifier.ID), err, ck.subject.Digest)
	}
	var sci payload.SimpleContainerImage
	if err := json.Unmarshal(pl, &sci); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if sci.Critical.Type != payload.CosignSignatureType {
		return nil, fmt.Errorf("%w: payload type %q, want %q", ErrPayloadType, sci.Critical.Type, payload.CosignSignatureType)
	}
	return key, nil
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
	if e.PayloadType != types.IntotoPayloadType {
		return nil, fmt.Errorf("%w: DSSE payload type %q, want %q", ErrPayloadType, e.PayloadType, types.IntotoPayloadType)
	}
	att, err := static.NewAttestation(env)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if err := cosign.IntotoSubjectClaimVerifier(att, ck.hash(), nil); err != nil {
		return nil, fmt.Errorf("%w: key %s signed it, but the statement's subject is not %s (%v)", ErrDigestClaim, keys.ShortID(key.Verifier.ID), ck.subject.Digest, err)
	}
	body, err := base64.StdEncoding.DecodeString(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	st, err := parseStatement(body)
	if err != nil {
		return nil, err
	}
	if cd.PredicateType != "" && st.PredicateType != cd.PredicateType {
		return nil, fmt.Errorf("%w: statement says %q, storage says %q", ErrPredicateType, st.PredicateType, cd.PredicateType)
	}
	switch {
	case cd.Kind == "signature" && st.PredicateType != sign.CosignSignPredicateType:
		return nil, fmt.Errorf("%w: signature statement of type %q, want %q", ErrPredicateType, st.PredicateType, sign.CosignSignPredicateType)
	case cd.Kind == "attestation" && st.PredicateType == sign.CosignSignPredicateType:
		cd.Kind = "signature"
	}
	cd.PredicateType, cd.statement = st.PredicateType, st
	if cd.Kind == "signature" {
		cd.PredicateType = ""
	}
	return key, nil
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
	return fmt.Errorf("%w: none of the %d trusted keys verifies it", ErrUntrusted, len(distinctKeys(ck.scope.Keys)))
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
