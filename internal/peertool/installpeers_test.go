package peertool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallPeersReusesTools: scripts/install-peers.sh links a peer CLI of
// the pinned version that is already on the machine (ADDONPACK_PEERS_DIR,
// or PATH) instead of building it for many minutes, and does not take one
// of another version.
func TestInstallPeersReusesTools(t *testing.T) {
	found := t.TempDir()
	fake := func(dir, name, version string) {
		script := "#!/bin/sh\necho 'GitVersion:    " + version + "'\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fake(found, "cosign", "v2.6.5")
	onPath := t.TempDir()
	fake(onPath, "cosign", "v3.1.3") // cosign3 under its own name on PATH
	tools := t.TempDir()
	cmd := exec.Command("../../scripts/install-peers.sh")
	cmd.Env = append(os.Environ(), "ADDONPACK_TOOLS="+tools, "ADDONPACK_PEERS=cosign cosign3",
		"ADDONPACK_PEERS_DIR="+found, "PATH="+onPath+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install-peers: %v\n%s", err, out)
	}
	for name, want := range map[string]string{"cosign": filepath.Join(found, "cosign"), "cosign3": filepath.Join(onPath, "cosign")} {
		got, err := os.Readlink(filepath.Join(tools, "bin", name))
		if err != nil || got != want {
			t.Errorf("%s links to %q (%v), want %s\n%s", name, got, err, want, out)
		}
	}
	if strings.Contains(string(out), "building") || strings.Count(string(out), "linked, not built") != 2 {
		t.Errorf("output:\n%s", out)
	}
}
