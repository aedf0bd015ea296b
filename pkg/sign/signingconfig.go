package sign

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
)

// MaxSigningConfigSize bounds a signing_config.json read (the public-good
// one is about 2 KiB).
const MaxSigningConfigSize = 1 << 20

// Rekor API versions a keyless signer can log to (a signing config's
// majorApiVersion of a Rekor log).
const (
	RekorV1 = 1
	RekorV2 = 2
)

// Log is one transparency log keyless signing writes to.
type Log struct {
	URL     string
	Version uint32 // RekorV1 or RekorV2
}

// services are the Sigstore services one keyless signer uses.
type services struct {
	fulcio string
	logs   []Log
	tsas   []string
}

// ReadSigningConfig reads a signing config file of at most
// MaxSigningConfigSize bytes and checks it (ParseSigningConfig).
func ReadSigningConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxSigningConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := ParseSigningConfig(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return raw, nil
}

// ParseSigningConfig reads a Sigstore signing config (signing_config.v0.2
// JSON, the file cosign v3 fetches through TUF or takes with
// --signing-config) with sigstore-go, which refuses other media types and
// unknown fields.
func ParseSigningConfig(raw []byte) (*root.SigningConfig, error) {
	if len(raw) > MaxSigningConfigSize {
		return nil, fmt.Errorf("%w: signing config: larger than %d bytes", ErrSign, MaxSigningConfigSize)
	}
	sc, err := root.NewSigningConfigFromJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: signing config: %w", ErrSign, err)
	}
	return sc, nil
}

// resolve chooses the services of cfg at now: each URL set in cfg wins,
// and what is not set comes from the signing config (specs/signing.md):
// a Fulcio valid at now (API v1), the Rekor logs its rekorTlogConfig
// selects (ANY, EXACT count or ALL, one per operator) among those valid at
// now with the highest majorApiVersion addonpack speaks (2, else 1), and
// the timestamp authorities its tsaConfig selects. Without a signing
// config, the URLs of cfg are all there is.
func (cfg KeylessConfig) resolve(sc *root.SigningConfig, now time.Time) (services, error) {
	s := services{fulcio: cfg.FulcioURL}
	if cfg.RekorURL != "" {
		v := cfg.RekorVersion
		if v == 0 {
			v = RekorV1
		}
		s.logs = []Log{{URL: cfg.RekorURL, Version: v}}
	}
	if cfg.TSAURL != "" {
		s.tsas = []string{cfg.TSAURL}
	}
	if sc == nil {
		return s, nil
	}
	if s.fulcio == "" {
		f, err := root.SelectService(sc.FulcioCertificateAuthorityURLs(), []uint32{1}, now)
		if err != nil {
			return s, fmt.Errorf("%w: signing config: Fulcio (caUrls): %w", ErrSign, err)
		}
		s.fulcio = f.URL
	}
	if s.logs == nil {
		logs, err := root.SelectServices(sc.RekorLogURLs(), sc.RekorLogURLsConfig(), []uint32{RekorV1, RekorV2}, now)
		if err != nil {
			return s, fmt.Errorf("%w: signing config: Rekor (rekorTlogUrls, %s): %w", ErrSign, selector(sc.RekorLogURLsConfig()), err)
		}
		for _, l := range logs {
			s.logs = append(s.logs, Log{URL: l.URL, Version: l.MajorAPIVersion})
		}
	}
	if s.tsas == nil && len(sc.TimestampAuthorityURLs()) > 0 {
		tsas, err := root.SelectServices(sc.TimestampAuthorityURLs(), sc.TimestampAuthorityURLsConfig(), []uint32{1}, now)
		if err != nil {
			return s, fmt.Errorf("%w: signing config: timestamp authorities (tsaUrls, %s): %w", ErrSign, selector(sc.TimestampAuthorityURLsConfig()), err)
		}
		for _, t := range tsas {
			s.tsas = append(s.tsas, t.URL)
		}
	}
	return s, nil
}

// checkURL refuses a service URL that is not http(s)://HOST[/PATH].
func checkURL(name, v string) error {
	p, err := url.Parse(v)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return fmt.Errorf("%w: %s URL %q: want http(s)://HOST[/PATH]", ErrSign, name, v)
	}
	return nil
}

func selector(c root.ServiceConfiguration) string {
	if c.Count > 0 {
		return fmt.Sprintf("selector %s, count %d", c.Selector, c.Count)
	}
	return "selector " + c.Selector.String()
}

// check refuses services keyless signing cannot use: every URL must be
// http(s), and a Rekor v2 log needs a timestamp authority, because its
// entries state no time (specs/signing.md).
func (s services) check() error {
	urls := []struct{ name, v string }{{"Fulcio", s.fulcio}}
	v2 := false
	for _, l := range s.logs {
		urls = append(urls, struct{ name, v string }{fmt.Sprintf("Rekor (v%d)", l.Version), l.URL})
		if l.Version != RekorV1 && l.Version != RekorV2 {
			return fmt.Errorf("%w: Rekor %s: API version %d (want 1 or 2)", ErrSign, l.URL, l.Version)
		}
		v2 = v2 || l.Version == RekorV2
	}
	for _, t := range s.tsas {
		urls = append(urls, struct{ name, v string }{"TSA", t})
	}
	for _, u := range urls {
		if err := checkURL(u.name, u.v); err != nil {
			return err
		}
	}
	if len(s.logs) == 0 {
		return fmt.Errorf("%w: keyless signing needs a Rekor log", ErrSign)
	}
	if v2 && len(s.tsas) == 0 {
		return fmt.Errorf("%w: Rekor v2 entries state no signing time, so keyless signing to Rekor v2 needs an RFC 3161 timestamp authority (--timestamp-server-url or the signing config's tsaUrls)", ErrSign)
	}
	return nil
}

func (s services) logURLs() string {
	var out []string
	for _, l := range s.logs {
		out = append(out, fmt.Sprintf("%s (v%d)", l.URL, l.Version))
	}
	return strings.Join(out, ", ")
}
