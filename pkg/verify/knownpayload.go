package verify

import (
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore/pkg/signature/payload"

	"github.com/addonpack/addonpack/pkg/sign"
)

// knownPayload returns the layer bytes of a classic signature without a
// request when they are the simple-signing payload that addonpack's classic
// signing (and cosign sign without annotations) writes for this subject in
// this repository: the claim is a function of the two, so it is built here
// and kept only if its digest and size are the layer descriptor's, which
// makes it the very bytes a fetch would have returned. Anything else (a
// payload with annotations, one signed under another repository name, a
// keyless layer, a layer over the policy's blob size limit, which the fetch
// refuses) is fetched as before. One request fewer per classic
// signature verified, of seven for a signed and attested add-on.
func (ck checker) knownPayload(cd *candidate) ([]byte, bool) {
	if cd.Format != string(sign.FormatClassic) || cd.Kind != "signature" || cd.blob.Digest.Algorithm() != digest.SHA256 || cd.blob.Size > ck.maxBlob {
		return nil, false
	}
	img, err := name.NewDigest(ck.t.Ref.Repo()+"@"+ck.subject.Digest.String(), name.Insecure)
	if err != nil {
		return nil, false
	}
	pl, err := (payload.Cosign{Image: img}).MarshalJSON()
	if err != nil || int64(len(pl)) != cd.blob.Size || digest.FromBytes(pl) != cd.blob.Digest {
		return nil, false
	}
	return pl, true
}
