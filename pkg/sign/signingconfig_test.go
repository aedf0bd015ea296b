package sign_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/sign"
)

// scService is one service of a signing config; start and end are offsets
// from now (end 0: open).
type scService struct {
	url        string
	version    int
	start, end time.Duration
	operator   string
}

func signingConfigJSON(t *testing.T, mediaType string, logs []scService, logSel string, logCount int, tsas []scService, extra map[string]any) []byte {
	t.Helper()
	now := time.Now()
	svc := func(in []scService) []map[string]any {
		out := []map[string]any{}
		for _, s := range in {
			vf := map[string]string{"start": now.Add(s.start).UTC().Format(time.RFC3339)}
			if s.end != 0 {
				vf["end"] = now.Add(s.end).UTC().Format(time.RFC3339)
			}
			out = append(out, map[string]any{"url": s.url, "majorApiVersion": s.version, "validFor": vf, "operator": s.operator})
		}
		return out
	}
	cfg := map[string]any{
		"mediaType":       mediaType,
		"caUrls":          svc([]scService{{"https://fulcio.example", 1, -time.Hour, 0, "a"}}),
		"rekorTlogUrls":   svc(logs),
		"rekorTlogConfig": map[string]any{"selector": logSel, "count": logCount},
		"tsaUrls":         svc(tsas),
		"tsaConfig":       map[string]any{"selector": "ANY"},
	}
	for k, v := range extra {
		cfg[k] = v
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSigningConfigChooses: which Fulcio, Rekor logs and TSAs a signing
// config chooses (specs/signing.md section 2), and that an explicit URL
// wins over it.
func TestSigningConfigChooses(t *testing.T) {
	const mt = "application/vnd.dev.sigstore.signingconfig.v0.2+json"
	h := time.Hour
	v1 := scService{"https://rekor.example", 1, -24 * h, 0, "a"}
	v2 := scService{"https://log2025-1.rekor.example", 2, -h, 0, "a"}
	v2b := scService{"https://log2025-1.rekor.other.example", 2, -h, 0, "b"}
	v2c := scService{"https://log2025-1.rekor.third.example", 2, -h, 0, "c"}
	tsa := []scService{{"https://tsa.example/api/v1/timestamp", 1, -h, 0, "a"}}
	type want struct {
		fulcio string
		logs   []string // URL@version
		tsas   []string
	}
	for _, tc := range []struct {
		name string
		sc   []byte
		cfg  sign.KeylessConfig
		want want
	}{
		{"v1 and v2: v2, the highest version", signingConfigJSON(t, mt, []scService{v1, v2}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v2.url + "@2"}, []string{tsa[0].url}}},
		{"v1 only", signingConfigJSON(t, mt, []scService{v1}, "ANY", 0, nil, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v1.url + "@1"}, nil}},
		{"v2 not yet valid: v1", signingConfigJSON(t, mt, []scService{v1, {v2.url, 2, h, 0, "a"}}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v1.url + "@1"}, []string{tsa[0].url}}},
		{"v2 expired: v1", signingConfigJSON(t, mt, []scService{v1, {v2.url, 2, -2 * h, -h, "a"}}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v1.url + "@1"}, []string{tsa[0].url}}},
		{"ALL: one per operator", signingConfigJSON(t, mt, []scService{v2, v2b}, "ALL", 0, tsa, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v2.url + "@2", v2b.url + "@2"}, []string{tsa[0].url}}},
		{"EXACT 3 of 3", signingConfigJSON(t, mt, []scService{v2, v2b, v2c}, "EXACT", 3, tsa, nil), sign.KeylessConfig{},
			want{"https://fulcio.example", []string{v2.url + "@2", v2b.url + "@2", v2c.url + "@2"}, []string{tsa[0].url}}},
		{"explicit URLs win", signingConfigJSON(t, mt, []scService{v1, v2}, "ANY", 0, tsa, nil),
			sign.KeylessConfig{FulcioURL: "https://my-fulcio.example", RekorURL: "https://my-rekor.example", TSAURL: "https://my-tsa.example/ts"},
			want{"https://my-fulcio.example", []string{"https://my-rekor.example@1"}, []string{"https://my-tsa.example/ts"}}},
		{"explicit Rekor v2 URL", signingConfigJSON(t, mt, []scService{v1}, "ANY", 0, tsa, nil),
			sign.KeylessConfig{RekorURL: "https://my-rekor.example", RekorVersion: sign.RekorV2},
			want{"https://fulcio.example", []string{"https://my-rekor.example@2"}, []string{tsa[0].url}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.IDToken, tc.cfg.SigningConfig = "token", tc.sc
			k, err := sign.NewKeyless(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			fulcio, logs, tsas := k.Services()
			var got []string
			for _, l := range logs {
				got = append(got, l.URL+"@"+string(rune('0'+l.Version)))
			}
			slices.Sort(got)
			slices.Sort(tc.want.logs)
			if fulcio != tc.want.fulcio || !slices.Equal(got, tc.want.logs) || !slices.Equal(tsas, tc.want.tsas) {
				t.Fatalf("chose Fulcio %s, logs %v, TSAs %v; want %+v", fulcio, got, tsas, tc.want)
			}
		})
	}
	// ANY picks one of the newest version's logs, at random.
	for range 10 {
		k, err := sign.NewKeyless(sign.KeylessConfig{IDToken: "t", SigningConfig: signingConfigJSON(t, mt, []scService{v1, v2, v2b}, "ANY", 0, tsa, nil)})
		if err != nil {
			t.Fatal(err)
		}
		if _, logs, _ := k.Services(); len(logs) != 1 || logs[0].Version != sign.RekorV2 {
			t.Fatalf("ANY chose %v", logs)
		}
	}
}

// TestSigningConfigRefusals: a signing config keyless signing cannot use
// is refused before anything is requested, saying why.
func TestSigningConfigRefusals(t *testing.T) {
	const mt = "application/vnd.dev.sigstore.signingconfig.v0.2+json"
	h := time.Hour
	v1 := scService{"https://rekor.example", 1, -24 * h, 0, "a"}
	v2 := scService{"https://log2025-1.rekor.example", 2, -h, 0, "a"}
	tsa := []scService{{"https://tsa.example/api/v1/timestamp", 1, -h, 0, "a"}}
	for _, tc := range []struct {
		name string
		sc   []byte
		cfg  sign.KeylessConfig
		says string
	}{
		{"Rekor v2 without a TSA", signingConfigJSON(t, mt, []scService{v2}, "ANY", 0, nil, nil), sign.KeylessConfig{},
			"keyless signing to Rekor v2 needs an RFC 3161 timestamp authority"},
		{"explicit Rekor v2 without a TSA", nil, sign.KeylessConfig{RekorURL: "https://r.example", RekorVersion: sign.RekorV2, TSAURL: ""},
			"keyless signing to Rekor v2 needs an RFC 3161 timestamp authority"},
		{"no log valid now", signingConfigJSON(t, mt, []scService{{v1.url, 1, h, 0, "a"}}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			"Rekor (rekorTlogUrls, selector ANY): no matching services"},
		{"EXACT more than there are", signingConfigJSON(t, mt, []scService{v1}, "EXACT", 2, tsa, nil), sign.KeylessConfig{},
			"selector EXACT, count 2"},
		{"unknown API version only", signingConfigJSON(t, mt, []scService{{v1.url, 3, -h, 0, "a"}}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			"no matching services"},
		{"another media type", signingConfigJSON(t, "application/vnd.dev.sigstore.signingconfig.v0.1+json", []scService{v1}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			"unsupported SigningConfig media type"},
		{"unknown field", signingConfigJSON(t, mt, []scService{v1}, "ANY", 0, tsa, map[string]any{"rekorTlogUrl": "x"}), sign.KeylessConfig{},
			"unknown field"},
		{"not http", signingConfigJSON(t, mt, []scService{{"ftp://rekor.example", 1, -h, 0, "a"}}, "ANY", 0, tsa, nil), sign.KeylessConfig{},
			`Rekor (v1) URL "ftp://rekor.example"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.IDToken, tc.cfg.SigningConfig = "token", tc.sc
			_, err := sign.NewKeyless(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err %v, want one saying %q", err, tc.says)
			}
			if !errors.Is(err, sign.ErrSign) {
				t.Errorf("error %v not in the signing class", err)
			}
		})
	}
}
