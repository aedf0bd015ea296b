package sign_test

import (
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/sign"
)

// FuzzSigningConfig: any bytes given as --signing-config either are
// refused or choose services keyless signing can use (a Fulcio and a log,
// each an http(s) URL, and a TSA whenever a log is Rekor v2); never a
// panic.
func FuzzSigningConfig(f *testing.F) {
	now := time.Now().UTC()
	valid := `{"mediaType":"application/vnd.dev.sigstore.signingconfig.v0.2+json",` +
		`"caUrls":[{"url":"https://fulcio.example","majorApiVersion":1,"validFor":{"start":"2020-01-01T00:00:00Z"},"operator":"a"}],` +
		`"rekorTlogUrls":[{"url":"https://log2025-1.rekor.example","majorApiVersion":2,"validFor":{"start":"` + now.Add(-time.Hour).Format(time.RFC3339) + `"},"operator":"a"},` +
		`{"url":"https://rekor.example","majorApiVersion":1,"validFor":{"start":"2020-01-01T00:00:00Z"},"operator":"b"}],` +
		`"rekorTlogConfig":{"selector":"ALL"},` +
		`"tsaUrls":[{"url":"https://tsa.example/api/v1/timestamp","majorApiVersion":1,"validFor":{"start":"2020-01-01T00:00:00Z"},"operator":"a"}],` +
		`"tsaConfig":{"selector":"ANY"}}`
	f.Add([]byte(valid))
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.signingconfig.v0.2+json","rekorTlogConfig":{"selector":"EXACT","count":3}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		k, err := sign.NewKeyless(sign.KeylessConfig{IDToken: "t", SigningConfig: raw})
		if err != nil {
			return
		}
		fulcio, logs, tsas := k.Services()
		if fulcio == "" || len(logs) == 0 {
			t.Fatalf("accepted without a Fulcio or a log: %q %v", fulcio, logs)
		}
		for _, l := range logs {
			if l.Version == sign.RekorV2 && len(tsas) == 0 {
				t.Fatalf("accepted Rekor v2 %s without a TSA", l.URL)
			}
		}
	})
}
