package commands_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestPushKeyFailsFirst: a key push cannot read (a missing file, no
// password), or whose password is wrong, fails with its exit code; the
// first two before anything is built or sent, the last once the key is
// decrypted (while the add-on builds and uploads), with no manifest or tag
// written.
func TestPushKeyFailsFirst(t *testing.T) {
	reg, dir, src, key, ref := helloWithKey(t)
	tests := []struct {
		name     string
		env      map[string]string
		key      string
		code     int
		says     string
		anything bool // requests may have been sent (never a manifest)
	}{
		{"missing key file", signEnv, filepath.Join(dir, "nope.key"), commands.ExitNotFound, "nope.key", false},
		{"no password", nil, key + ".key", commands.ExitUsage, "COSIGN_PASSWORD", false},
		{"wrong password", map[string]string{"COSIGN_PASSWORD": "wrong"}, key + ".key", commands.ExitInvalid, "wrong password", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, got := runCounted(t, reg, tt.env, "push", src, ref, "--key", tt.key, "--no-cache")
			if r.code != tt.code || !strings.Contains(r.err, tt.says) {
				t.Fatalf("exit %d, want %d saying %q: %+v", r.code, tt.code, tt.says, r)
			}
			for _, req := range got.requests {
				if strings.Contains(req, "manifest") && !strings.HasPrefix(req, "GET") && !strings.HasPrefix(req, "HEAD") {
					t.Errorf("wrote a manifest: %s", req)
				}
			}
			if !tt.anything && len(got.requests) > 0 {
				t.Errorf("sent %q before the key failed", got.requests)
			}
			if !tt.anything && got.steps.KustomizeBuilds > 0 {
				t.Errorf("built (%+v) before the key failed", got.steps)
			}
		})
	}
}
