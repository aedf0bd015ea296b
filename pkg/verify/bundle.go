package verify

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// bundleEnvelope extracts the DSSE envelope of a Sigstore bundle (v0.1 to
// v0.3) in the JSON form DSSE verifiers read.
func bundleEnvelope(b []byte) ([]byte, error) {
	var pb protobundle.Bundle
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, &pb); err != nil {
		return nil, fmt.Errorf("%w: sigstore bundle: %w", ErrMalformed, err)
	}
	if !strings.HasPrefix(pb.GetMediaType(), "application/vnd.dev.sigstore.bundle") {
		return nil, fmt.Errorf("%w: sigstore bundle media type %q", ErrMalformed, pb.GetMediaType())
	}
	d := pb.GetDsseEnvelope()
	if d == nil {
		return nil, fmt.Errorf("%w: sigstore bundle without a DSSE envelope", ErrPayloadType)
	}
	e := ssldsse.Envelope{PayloadType: d.GetPayloadType(), Payload: base64.StdEncoding.EncodeToString(d.GetPayload())}
	for _, s := range d.GetSignatures() {
		e.Signatures = append(e.Signatures, ssldsse.Signature{KeyID: s.GetKeyid(), Sig: base64.StdEncoding.EncodeToString(s.GetSig())})
	}
	return json.Marshal(e)
}
