package commands_test

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestUnknownCommand: a mistyped verb, at the top or under a group, is a
// usage error (exit 2, as the README's table says) naming it, with
// suggestions; a group given no verb shows its help and succeeds.
func TestUnknownCommand(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    []string
		code    int
		wantOut string
	}{
		{[]string{"biuld"}, []string{`unknown command "biuld" for "addonpack"`, "did you mean build?", "Run 'addonpack --help'"}, commands.ExitUsage, ""},
		{[]string{"config", "shema"}, []string{`unknown command "shema" for "addonpack config"`, "did you mean schema?"}, commands.ExitUsage, ""},
		{[]string{"trusted-root", "fetsh"}, []string{`unknown command "fetsh" for "addonpack trusted-root"`}, commands.ExitUsage, ""},
		{[]string{"registry", "nope"}, []string{`unknown command "nope"`}, commands.ExitUsage, ""},
		{[]string{}, nil, commands.ExitOK, "Available Commands:"},
		{[]string{"config"}, nil, commands.ExitOK, "Available Commands:"},
	} {
		r := run(t, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.out, tc.wantOut) {
			t.Errorf("addonpack %v: exit %d, stdout %q; want exit %d and %q", tc.args, r.code, r.out, tc.code, tc.wantOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.err, w) {
				t.Errorf("addonpack %v: stderr %q lacks %q", tc.args, r.err, w)
			}
		}
	}
}
