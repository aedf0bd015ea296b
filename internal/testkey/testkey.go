// Package testkey makes signing keys for tests: a cosign-format key pair,
// generated, written into the test's temporary directory and unlocked, the
// way `addonpack keygen` and `push --key` would.
package testkey

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/pkg/keys"
)

// Password encrypts every private key this package writes.
const Password = "pw"

// New returns an unlocked signer and the paths of its private key
// (encrypted with Password) and public key.
func New(tb testing.TB) (s *keys.Signer, keyPath, pubPath string) {
	tb.Helper()
	pair, err := keys.GenerateKeyPair(keys.StaticPass([]byte(Password)))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	keyPath, pubPath = filepath.Join(dir, "k.key"), filepath.Join(dir, "k.pub")
	if err := os.WriteFile(keyPath, pair.PrivatePEM, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(pubPath, pair.PublicPEM, 0o644); err != nil {
		tb.Fatal(err)
	}
	s, err = keys.LoadSigner(context.Background(), keyPath, keys.StaticPass([]byte(Password)), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return s, keyPath, pubPath
}
