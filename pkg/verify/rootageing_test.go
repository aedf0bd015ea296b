package verify_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	prototrustroot "github.com/sigstore/protobuf-specs/gen/pb-go/trustroot/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/verify"
)

const day = 24 * time.Hour

// agedRoot writes the trusted root of a test Sigstore whose CA, logs and
// TSA the root declares valid from start to end (ca, when set, bounds the
// CA alone), after edit, and returns its path.
func agedRoot(t *testing.T, start, end time.Time, ca []time.Time, edit func(*prototrustroot.TrustedRoot)) string {
	t.Helper()
	opts := []testsigstore.Option{testsigstore.WithValidity(start, end)}
	if ca != nil {
		opts = append(opts, testsigstore.WithCAValidity(ca[0], ca[1]))
	}
	ss, err := testsigstore.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ss.TrustedRootJSON(testsigstore.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var pb prototrustroot.TrustedRoot
		if err := protojson.Unmarshal(raw, &pb); err != nil {
			t.Fatal(err)
		}
		edit(&pb)
		if raw, err = protojson.Marshal(&pb); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrustedRootAgeing(t *testing.T) {
	now := time.Now().UTC()
	// A second CA that takes over: the same chain, declared valid for longer.
	successor := func(pb *prototrustroot.TrustedRoot) {
		ca := protoClone(t, pb.CertificateAuthorities[0])
		ca.Uri = "https://fulcio-next.test.invalid"
		ca.ValidFor.End = nil
		pb.CertificateAuthorities = append(pb.CertificateAuthorities, ca)
	}
	for _, tc := range []struct {
		name       string
		start, end time.Time
		ca         []time.Time
		edit       func(*prototrustroot.TrustedRoot)
		want       []string // each a substring of one warning, in order
	}{
		{name: "in 10 days: every part", start: now.Add(-day), end: now.Add(10 * day), want: []string{
			"certificate authority " + testsigstore.FulcioURL + " stops being valid at", "(in 10 days)", "no other certificate authority",
		}},
		{name: "in 40 days: nothing", start: now.Add(-day), end: now.Add(40 * day)},
		{name: "already: CA expired", start: now.Add(-10 * day), end: now.Add(100 * day), ca: []time.Time{now.Add(-10 * day), now.Add(-2 * day)}, want: []string{
			"certificate authority " + testsigstore.FulcioURL + " stopped being valid at", "(2 days ago)", "no other certificate authority of the root is valid now",
		}},
		{name: "already, replaced: quiet", start: now.Add(-10 * day), end: now.Add(100 * day), ca: []time.Time{now.Add(-10 * day), now.Add(-2 * day)}, edit: successor},
		{name: "in 10 days, replaced: said", start: now.Add(-day), end: now.Add(100 * day), ca: []time.Time{now.Add(-day), now.Add(10 * day)}, edit: successor, want: []string{
			"certificate authority " + testsigstore.FulcioURL + " stops being valid", "another certificate authority of the root stays valid after then",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := agedRoot(t, tc.start, tc.end, tc.ca, tc.edit)
			r, err := verify.LoadTrustedRoot("pinned", path, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Ageing(now, verify.AgeingWindow)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("warnings %v, want none", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("no warnings, want %q", tc.want)
			}
			first := got[0].String()
			for _, w := range append(tc.want, `trusted root "pinned" (`+r.Digest+")") {
				if !strings.Contains(first, w) {
					t.Errorf("warning %q does not say %q", first, w)
				}
			}
			if strings.Contains(tc.name, "every part") {
				kinds := map[string]bool{}
				for _, a := range got {
					kinds[a.Kind] = true
				}
				if len(kinds) != 4 {
					t.Errorf("kinds warned about: %v, want CA, Rekor log, CT log and TSA", kinds)
				}
			}
		})
	}
}

// TestTrustedRootAgeingChain: a certificate of a chain that ends before the
// root's window ends the authority with it.
func TestTrustedRootAgeingChain(t *testing.T) {
	now := time.Now().UTC()
	// The certificates outlive the declared window by 30 days
	// (testsigstore.New): declared to 90 days ahead, the chain ends first.
	path := agedRoot(t, now.Add(-45*day), now.Add(-20*day), nil, func(pb *prototrustroot.TrustedRoot) {
		for _, ca := range append(pb.CertificateAuthorities, pb.TimestampAuthorities...) {
			ca.ValidFor.End = nil
		}
		for _, l := range append(pb.Tlogs, pb.Ctlogs...) {
			l.PublicKey.ValidFor.End = nil
		}
	})
	rep, err := verify.InspectTrustedRoot(path, now)
	if err != nil {
		t.Fatal(err)
	}
	ca := rep.CertificateAuthorities[0]
	if ca.ValidFor.End != nil || ca.Ends == nil || ca.Ends.Sub(now) > 11*day || ca.Ends.Sub(now) < 9*day {
		t.Fatalf("CA validFor %v, ends %v: want an open window ending with its chain in 10 days", ca.ValidFor, ca.Ends)
	}
	if all := strings.Join(rep.Warnings, "\n"); len(rep.Warnings) != 2 || !strings.Contains(all, "certificate authority "+testsigstore.FulcioURL) || !strings.Contains(all, "timestamping authority "+testsigstore.TSAURL) {
		t.Fatalf("warnings %q, want the CA and the TSA (their chains end in 10 days), not the open logs", rep.Warnings)
	}
}

func TestInspectTrustedRoot(t *testing.T) {
	now := time.Now().UTC()
	v2 := func(pb *prototrustroot.TrustedRoot) {
		l := protoClone(t, pb.Tlogs[0])
		l.BaseUrl = "https://log2026-1.rekor.test.invalid"
		l.CheckpointKeyId = protoClone(t, l.LogId)
		v1 := protoClone(t, pb.Tlogs[0])
		v1.BaseUrl = "https://rekor-v1.test.invalid"
		v1.CheckpointKeyId = protoClone(t, l.LogId)
		v1.CheckpointKeyId.KeyId = v1.CheckpointKeyId.KeyId[:4] // C2SP: a truncated hash
		pb.Tlogs = append(pb.Tlogs, l, v1)
	}
	path := agedRoot(t, now.Add(-day), now.Add(100*day), nil, v2)
	rep, err := verify.InspectTrustedRoot(path, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CertificateAuthorities) != 1 || len(rep.TransparencyLogs) != 3 || len(rep.CTLogs) != 1 || len(rep.TimestampAuthorities) != 1 {
		t.Fatalf("parts %d CAs, %d tlogs, %d ctlogs, %d TSAs; want 1, 3, 1, 1", len(rep.CertificateAuthorities), len(rep.TransparencyLogs), len(rep.CTLogs), len(rep.TimestampAuthorities))
	}
	for i, want := range []struct{ url, api string }{{testsigstore.RekorURL, "unstated"}, {"https://log2026-1.rekor.test.invalid", "v2"}, {"https://rekor-v1.test.invalid", "v1"}} {
		l := rep.TransparencyLogs[i]
		if l.BaseURL != want.url || l.RekorAPI != want.api || l.KeyType != "PKIX_ECDSA_P256_SHA_256" || len(l.LogID) != 64 {
			t.Errorf("tlog %d: %+v, want %s, Rekor %s, a P-256 key, a 32-byte log id", i, l, want.url, want.api)
		}
	}
	ca := rep.CertificateAuthorities[0]
	if len(ca.Chain) != 2 || !strings.Contains(ca.Subject, "intermediate") || ca.Chain[1].Subject != ca.Chain[1].Issuer || ca.URI != testsigstore.FulcioURL {
		t.Errorf("CA %+v: want the intermediate, then the self-signed root, and the Fulcio URI", ca)
	}
	if tsa := rep.TimestampAuthorities[0]; len(tsa.Chain) != 3 || tsa.Chain[0].CA {
		t.Errorf("TSA chain %+v: want the signing certificate (not a CA), intermediate, root", tsa.Chain)
	}
	if rep.Warnings == nil || len(rep.Warnings) != 0 {
		t.Errorf("warnings %#v, want an empty list", rep.Warnings)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"digest: " + rep.Digest, "Rekor logs (tlogs) (3)", "rekor api: v2", "certificate authorities (1)", "timestamping authorities (1)", "key: PKIX_ECDSA_P256_SHA_256, SHA2_256"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text does not say %q:\n%s", want, text.String())
		}
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"certificateAuthorities":`, `"tlogs":`, `"ctlogs":`, `"timestampAuthorities":`, `"rekorApi":"v2"`, `"warnings":[]`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("JSON has no %s: %s", key, js)
		}
	}
}

func TestInspectTrustedRootRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"notjson": "{", "noca": `{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := verify.InspectTrustedRoot(path, time.Now()); !errors.Is(err, verify.ErrPolicy) {
			t.Errorf("%s: %v, want ErrPolicy", name, err)
		}
	}
}

func protoClone[T proto.Message](t *testing.T, m T) T {
	t.Helper()
	return proto.Clone(m).(T)
}
