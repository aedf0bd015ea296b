package sign_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
)

// TestKeylessRequestCheck: the flag combinations keyless signing refuses
// are command-line mistakes, with the CLI's messages.
func TestKeylessRequestCheck(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, g := range names {
				if g == n {
					return true
				}
			}
			return false
		}
	}
	tests := []struct {
		name        string
		r           sign.KeylessRequest
		key, format string
		want        string // "" : accepted
	}{
		{"nothing asked", sign.KeylessRequest{}, "release.key", "classic", ""},
		{"a service flag without --keyless", sign.KeylessRequest{Changed: given("rekor-url")}, "", "bundle", "--rekor-url needs --keyless"},
		{"a token implies --keyless", sign.KeylessRequest{Token: "t", Changed: given("rekor-url")}, "", "bundle", ""},
		{"--key and --keyless", sign.KeylessRequest{On: true}, "release.key", "bundle", "--key and --keyless are exclusive: a signature is made with a key or with a Fulcio certificate"},
		{"classic given", sign.KeylessRequest{On: true, Changed: given("signature-format")}, "", "classic", "--keyless stores Sigstore bundles: --signature-format classic is not supported with it"},
		{"bundle given", sign.KeylessRequest{On: true, Changed: given("signature-format")}, "", "bundle", ""},
	}
	for _, tt := range tests {
		err := tt.r.Check(tt.key, tt.format)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, errdef.ErrUsage)):
			t.Errorf("%s: got %v, want the usage error %q", tt.name, err, tt.want)
		}
	}
	// No token and no GitHub Actions job: nothing to sign with, a usage error.
	_, err := sign.KeylessRequest{On: true}.Prepare(context.Background(), func(string) string { return "" })
	if !errors.Is(err, errdef.ErrUsage) {
		t.Errorf("Prepare without a token: %v, want a usage error", err)
	}
}

func TestParseOptions(t *testing.T) {
	o, err := sign.ParseOptions("both", []string{"team=dns", "empty="})
	if err != nil || o.Format != sign.FormatBoth || o.Annotations["team"] != "dns" || o.Annotations["empty"] != "" || len(o.Annotations) != 2 {
		t.Fatalf("%+v %v", o, err)
	}
	for _, tt := range []struct{ format, a, want string }{
		{"both", "=x", `-a "=x": want key=value`},
		{"both", "novalue", `-a "novalue": want key=value`},
		{"sideways", "", "sideways"},
	} {
		var as []string
		if tt.a != "" {
			as = []string{tt.a}
		}
		if _, err := sign.ParseOptions(tt.format, as); !errors.Is(err, errdef.ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseOptions(%q, %q) = %v, want a usage error with %q", tt.format, tt.a, err, tt.want)
		}
	}
	if got := (sign.Result{Identity: "me@example.com", Issuer: "https://accounts.google.com"}).SignedBy(); got != "me@example.com (https://accounts.google.com)" {
		t.Errorf("SignedBy of an identity: %q", got)
	}
}
