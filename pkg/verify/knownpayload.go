package verify

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
)

// knownPayload returns the bytes of a candidate's blob without a request
// when they are known already, checked against the blob's descriptor (so
// they are the very bytes a fetch would have returned):
//
//   - a bundle referrer's manifest embeds its bundle in the layer
//     descriptor's data (specs/provenance.md; addonpack writes it); data
//     whose size or digest is not the descriptor's fails the candidate,
//     and empty data is read as absent;
//   - a classic signature's payload is the simple-signing claim that
//     addonpack's classic signing (and cosign sign without annotations,
//     keyless or not) writes for this subject in this repository: a
//     function of the two, built here and kept if its digest and size are
//     the layer's.
//
// Anything else (a payload with annotations, one signed under another
// repository name, a blob over the policy's size limit, which the fetch
// refuses) is fetched as before. One request fewer per signature or
// attestation whose bytes are known.
func (ck checker) knownPayload(cd *candidate) ([]byte, bool, error) {
	if cd.blob.Size > ck.maxBlob {
		return nil, false, nil
	}
	if alg := cd.blob.Digest.Algorithm(); len(cd.blob.Data) > 0 && alg.Available() {
		if int64(len(cd.blob.Data)) != cd.blob.Size || alg.FromBytes(cd.blob.Data) != cd.blob.Digest {
			return nil, false, fmt.Errorf("%w: the layer descriptor's data is not the %d bytes of %s: %w", ErrMalformed, cd.blob.Size, cd.blob.Digest, errdef.ErrDigestMismatch)
		}
		return cd.blob.Data, true, nil
	}
	if cd.Format != string(sign.FormatClassic) || cd.Kind != "signature" || cd.blob.Digest.Algorithm() != digest.SHA256 {
		return nil, false, nil
	}
	img, err := name.NewDigest(ck.t.Ref.Repo()+"@"+ck.subject.Digest.String(), name.Insecure)
	if err != nil {
		return nil, false, nil
	}
	pl, err := (payload.Cosign{Image: img}).MarshalJSON()
	if err != nil || int64(len(pl)) != cd.blob.Size || digest.FromBytes(pl) != cd.blob.Digest {
		return nil, false, nil
	}
	return pl, true, nil
}
