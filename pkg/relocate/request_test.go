package relocate_test

import (
	"errors"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// TestRequestChecks: copy's modes and the arguments each takes; every
// refusal is a usage error with the CLI's message.
func TestRequestChecks(t *testing.T) {
	tests := []struct {
		name string
		r    relocate.Request
		args int
		want string // "" : accepted
	}{
		{"SRC DST", relocate.Request{}, 2, ""},
		{"one argument without a tarball", relocate.Request{}, 1, "want 2 argument(s) (SRC DST), got 1"},
		{"SRC --to-tarball", relocate.Request{ToTarball: "o.tar"}, 1, ""},
		{"--to-tarball with two", relocate.Request{ToTarball: "o.tar"}, 2, "want 1 argument(s) (SRC with --to-tarball, DST with --from-tarball), got 2"},
		{"both tarballs", relocate.Request{ToTarball: "o.tar", FromTarball: "i.tar"}, 1, "give --to-tarball or --from-tarball, not both"},
		{"--stack --to-tarball", relocate.Request{Stack: true, ToTarball: "o.tar"}, 0, ""},
		{"--stack --to-tarball with an argument", relocate.Request{Stack: true, ToTarball: "o.tar"}, 1, "--stack --to-tarball takes no argument (the stack file names the add-ons), got 1"},
		{"--stack --from-tarball DST", relocate.Request{Stack: true, FromTarball: "i.tar"}, 1, ""},
		{"--stack --from-tarball without DST", relocate.Request{Stack: true, FromTarball: "i.tar"}, 0, "--stack --from-tarball takes one argument, DST (REGISTRY/PREFIX: each add-on goes to DST/NAME), got 0"},
		{"--stack without a tarball", relocate.Request{Stack: true}, 2, "--stack copies a locked stack across an air gap: give --to-tarball OUT, or --from-tarball IN and DST"},
	}
	for _, tt := range tests {
		check(t, tt.name, tt.r.CheckArgs(tt.args), tt.want)
	}
	roots := []struct {
		name string
		r    relocate.Request
		want string
	}{
		{"carried to a tarball", relocate.Request{ToTarball: "o.tar", CarryTrustedRoot: "root.json"}, ""},
		{"carried without a tarball", relocate.Request{CarryTrustedRoot: "root.json"}, "--carry-trusted-root goes with --to-tarball"},
		{"written out without a tarball", relocate.Request{TrustedRootOut: "root.json"}, "--trusted-root-out goes with --from-tarball"},
		{"written out and trusted unpinned", relocate.Request{FromTarball: "i.tar", TrustedRootOut: "root.json", KeylessRoot: true}, "--trusted-root-out with --trusted-root would trust the carried root without a pinned digest: pin its digest in a --policy instead (specs/policy.md)"},
	}
	for _, tt := range roots {
		check(t, tt.name, tt.r.CheckTrustedRoot(), tt.want)
	}
}

func check(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: refused: %v", name, err)
	case want != "" && (err == nil || err.Error() != want || !errors.Is(err, errdef.ErrUsage)):
		t.Errorf("%s: got %v, want the usage error %q", name, err, want)
	}
}
