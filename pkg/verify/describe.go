package verify

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// Unverified is the verdict of a candidate Describe read but did not check.
const Unverified = "unverified"

// Describe lists the signatures and attestations stored for subject, as
// Attached does, and reads who each claims to be signed by: a keyless
// signature's certificate (issuer, subject and Fulcio extensions, in the
// form a policy's identities take), a bundle's public key hint. Nothing is
// verified: this is what to look at before deciding what to trust
// (`inspect --signatures`); Verify decides. Classic key signatures carry
// no key id and show none. Blobs are fetched within limits.
func Describe(ctx context.Context, t Target, subject ocispec.Descriptor, limits Limits) ([]Candidate, error) {
	limits = limits.withDefaults()
	c := &collector{t: t, subject: subject, limits: limits}
	cands, err := c.collect(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, len(cands))
	for i := range cands {
		cd := &cands[i]
		if cd.Verdict == "" {
			if err := describe(ctx, t, cd, limits.MaxBlobSize); err != nil {
				return nil, err
			}
		}
		out[i] = cd.Candidate
		if out[i].Verdict == "" {
			out[i].Verdict = Unverified
		}
	}
	return out, nil
}

// describe reads cd's signer; only registry failures are returned.
func describe(ctx context.Context, t Target, cd *candidate, maxBlob int64) error {
	var cert *x509.Certificate
	if cd.Format == string(sign.FormatClassic) {
		if !isKeylessLayer(cd.ann) {
			return nil
		}
		c, err := leafCertificate([]byte(cd.ann[static.CertificateAnnotationKey]))
		if err != nil {
			cd.fail(fmt.Errorf("%s: %w", cd.Location, err))
			return nil
		}
		cert = c
	} else {
		b, err := t.Client.FetchBlobBytes(ctx, cd.repo, cd.blob, maxBlob)
		if err != nil {
			if isRegistryFailure(err) {
				return err
			}
			cd.fail(fmt.Errorf("%s: %w: %w", cd.Location, ErrMalformed, err))
			return nil
		}
		var pb protobundle.Bundle
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &pb); err != nil {
			cd.fail(fmt.Errorf("%s: %w: sigstore bundle: %w", cd.Location, ErrMalformed, err))
			return nil
		}
		vm := pb.GetVerificationMaterial()
		raw := vm.GetCertificate().GetRawBytes()
		if chain := vm.GetX509CertificateChain().GetCertificates(); raw == nil && len(chain) > 0 {
			raw = chain[0].GetRawBytes()
		}
		if raw == nil {
			cd.KeyID = vm.GetPublicKey().GetHint()
			return nil
		}
		if cert, err = x509.ParseCertificate(raw); err != nil {
			cd.fail(fmt.Errorf("%s: %w: certificate: %w", cd.Location, ErrMalformed, err))
			return nil
		}
	}
	sum, err := certificate.SummarizeCertificate(cert)
	if err != nil {
		cd.fail(fmt.Errorf("%s: %w: certificate: %w", cd.Location, ErrMalformed, err))
		return nil
	}
	cd.Identity = certIdentity(sum)
	return nil
}

// isRegistryFailure tells a registry that could not answer (unreachable,
// denied) from a blob that is bad (too large, wrong digest, missing), which
// only makes its candidate invalid.
func isRegistryFailure(err error) bool {
	return !errors.Is(err, registry.ErrTooLarge) && !errors.Is(err, errdef.ErrDigestMismatch) &&
		!errors.Is(err, errdef.ErrSizeMismatch) && !errors.Is(err, registry.ErrNotFound)
}

// WriteCandidates writes what Describe found, one block per candidate.
func WriteCandidates(w io.Writer, cands []Candidate) {
	fmt.Fprintf(w, "Signatures:   %d found (not verified: verify decides)\n", len(cands))
	for _, c := range cands {
		line := "  " + c.Kind + " " + c.Format
		if c.PredicateType != "" {
			line += " " + c.PredicateType
		}
		fmt.Fprintf(w, "%s at %s\n", line, c.Location)
		switch {
		case c.Identity != nil:
			fmt.Fprintf(w, "    issuer:  %s\n    subject: %s\n", c.Identity.Issuer, c.Identity.Subject)
			if c.Identity.Extensions != nil {
				b, _ := json.Marshal(c.Identity.Extensions)
				fmt.Fprintf(w, "    extensions: %s\n", b)
			}
		case c.KeyID != "":
			fmt.Fprintf(w, "    key hint: %s\n", c.KeyID)
		case c.Reason != "":
			fmt.Fprintf(w, "    unreadable: %s\n", c.Reason)
		default:
			fmt.Fprintf(w, "    signed with a key (no key id is stored; verify --key tells whose)\n")
		}
	}
}
