package testsigstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SigningConfigFile writes a Sigstore signing config (signing_config.v0.2,
// the form cosign v3 takes with --signing-config instead of one fetched
// through TUF) naming these servers: the Fulcio, the Rekor v1 log and the
// TSA, each valid from a day ago. The cosign v3 CLI signs keyless against
// the test Sigstore with it and the trusted root (TrustedRootFile), with no
// URL flags: its defaults otherwise.
func (s *Servers) SigningConfigFile(t testing.TB) string {
	t.Helper()
	return s.signingConfig(t, false)
}

// SigningConfigRekorV2File is SigningConfigFile listing the Rekor v2 log
// (majorApiVersion 2, valid from an hour ago) before the v1 log: a client
// that speaks Rekor v2 picks it (the highest version it supports, as
// cosign v3 and sigstore-go's SelectServices do), then always asks the TSA
// for a timestamp.
func (s *Servers) SigningConfigRekorV2File(t testing.TB) string {
	t.Helper()
	return s.signingConfig(t, true)
}

func (s *Servers) signingConfig(t testing.TB, rekorV2 bool) string {
	type service struct {
		URL             string            `json:"url"`
		MajorAPIVersion int               `json:"majorApiVersion"`
		ValidFor        map[string]string `json:"validFor"`
		Operator        string            `json:"operator"`
	}
	from := map[string]string{"start": time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339)}
	svc := func(url string) []service { return []service{{url, 1, from, "addonpack-test"}} }
	logs := svc(s.Rekor.URL)
	if rekorV2 {
		recent := map[string]string{"start": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}
		logs = append([]service{{s.RekorV2.URL, 2, recent, "addonpack-test"}}, logs...)
	}
	cfg := map[string]any{
		"mediaType":       "application/vnd.dev.sigstore.signingconfig.v0.2+json",
		"caUrls":          svc(s.Fulcio.URL),
		"oidcUrls":        []service{},
		"rekorTlogUrls":   logs,
		"rekorTlogConfig": map[string]string{"selector": "ANY"},
		"tsaUrls":         svc(s.TSA.URL),
		"tsaConfig":       map[string]string{"selector": "ANY"},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "signing_config.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
