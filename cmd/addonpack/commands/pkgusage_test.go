package commands_test

import (
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestPackageUsageErrors: flag mistakes that pkg/ finds (errdef.ErrUsage)
// are reported as the CLI's own: exit 2, the message, the usage hint.
func TestPackageUsageErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"copy", "localhost:5000/a/b:1.0.0", "localhost:5000/c/b", "localhost:5000/d/b", "--key", "k.pub"}, "want 2 argument(s) (SRC DST), got 3"},
		{[]string{"copy", "--stack", "addons.yaml", "--key", "k.pub"}, "--stack copies a locked stack across an air gap: give --to-tarball OUT, or --from-tarball IN and DST"},
		{[]string{"copy", "localhost:5000/a/b:1.0.0", "localhost:5000/c/b", "--carry-trusted-root", "root.json", "--key", "k.pub"}, "--carry-trusted-root goes with --to-tarball"},
		{[]string{"sign", "localhost:5000/a/b:1.0.0", "--key", "k.key", "-a", "novalue"}, `-a "novalue": want key=value`},
		{[]string{"push", "./hello", "localhost:5000/a/hello:0.1.0", "--key", "k.key", "--keyless"}, "--key and --keyless are exclusive: a signature is made with a key or with a Fulcio certificate"},
		{[]string{"trusted-root", "fetch", "-o", filepath.Join(dir, "root.json"), "--tuf-url", "http://localhost:1"}, "--tuf-url http://localhost:1 needs --tuf-root: the initial root.json to trust for that repository (only the public-good mirror's is built in)"},
	}
	for _, tt := range tests {
		r := run(t, nil, tt.args...)
		if want := "Error: " + tt.want + "\nRun 'addonpack --help' for usage.\n"; r.code != commands.ExitUsage || r.err != want {
			t.Errorf("%v: exit %d\n%s\nwant exit %d\n%s", tt.args, r.code, r.err, commands.ExitUsage, want)
		}
	}
}
