// Package peertool finds the real peer CLIs the interop tests run (cosign
// v2, cosign3 — the cosign v3 CLI under its own name —, oras, crane,
// skopeo): $ADDONPACK_TOOLS/bin, ~/.cache/addonpack-tools/bin, then PATH,
// where scripts/install-peers.sh and scripts/ensure-tools.sh put them.
package peertool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The two cosign CLIs, by the names install-peers.sh gives them: both
// majors build a binary called cosign, so v3 is renamed.
const (
	Cosign2 = "cosign"  // v2.6.x: classic tags by default, bundles with --new-bundle-format
	Cosign3 = "cosign3" // v3.1.x: Sigstore bundle referrers by default
)

// RequireEnv, set to 1 (make test sets it), turns a missing peer into a
// test failure instead of a skip, so CI can never pass on skipped interop
// tests.
const RequireEnv = "ADDONPACK_REQUIRE_PEERS"

// Path returns the path of the peer CLI name. When it is not installed the
// test fails under RequireEnv=1 and is skipped, loudly, otherwise (a plain
// `go test` on a machine without the peers).
func Path(tb testing.TB, name string) string {
	tb.Helper()
	if p := Find(name); p != "" {
		return p
	}
	msg := "the " + name + " binary is not installed: run scripts/install-peers.sh and scripts/ensure-tools.sh " +
		"(make test does) to install cosign, cosign3, oras, crane into $ADDONPACK_TOOLS/bin and skopeo from Debian"
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf("%s is required (%s=1): %s", name, RequireEnv, msg)
	}
	tb.Skipf("SKIPPING %s INTEROP TEST: %s", strings.ToUpper(name), msg)
	return ""
}

// Find returns the path of the peer CLI name, or "" when it is not installed.
func Find(name string) string {
	var dirs []string
	if d := os.Getenv("ADDONPACK_TOOLS"); d != "" {
		dirs = append(dirs, filepath.Join(d, "bin"))
	}
	if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".cache", "addonpack-tools", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}
