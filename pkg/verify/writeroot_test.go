package verify_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestWriteTrustedRootFile: the file is written whole under its name and
// its digest returned; an existing file is never replaced without force
// (and nothing is left beside it), and is with force.
func TestWriteTrustedRootFile(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	sum := sha256.Sum256(raw)
	want := "sha256:" + hex.EncodeToString(sum[:])
	dir := t.TempDir()
	out := filepath.Join(dir, "trusted_root.json")

	got, err := verify.WriteTrustedRootFile(raw, "test", out, false)
	if err != nil || got != want {
		t.Fatalf("write = %q, %v; want %q", got, err, want)
	}
	if b, _ := os.ReadFile(out); string(b) != string(raw) {
		t.Fatalf("%s holds %d bytes, want the %d written", out, len(b), len(raw))
	}

	os.WriteFile(out, []byte("mine"), 0o644)
	if _, err := verify.WriteTrustedRootFile(raw, "test", out, false); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("over an existing file without force: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "mine" {
		t.Fatalf("the existing file was replaced: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left beside it: %v", entries)
	}

	if got, err := verify.WriteTrustedRootFile(raw, "test", out, true); err != nil || got != want {
		t.Fatalf("with force = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(out); string(b) != string(raw) {
		t.Fatal("with force the file was not replaced")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left beside it: %v", entries)
	}
}
