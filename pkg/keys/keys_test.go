package keys_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/keys"
)

func TestKeyPairRoundTrip(t *testing.T) {
	ctx := context.Background()
	prefix := filepath.Join(t.TempDir(), "k")
	pair, err := keys.WriteKeyPair(prefix, keys.StaticPass([]byte("pw")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pair.PrivatePEM), "ENCRYPTED SIGSTORE PRIVATE KEY") {
		t.Fatalf("not a cosign key: %s", pair.PrivatePEM)
	}
	if fi, _ := os.Stat(prefix + ".key"); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if _, err := keys.WriteKeyPair(prefix, keys.StaticPass([]byte("pw"))); !errors.Is(err, keys.ErrExists) {
		t.Fatalf("overwrite: %v", err)
	}
	s, err := keys.LoadSigner(ctx, prefix+".key", keys.StaticPass([]byte("pw")), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := keys.LoadVerifier(ctx, prefix+".pub", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != pair.ID || v.ID != pair.ID || !strings.HasPrefix(pair.ID, "sha256:") {
		t.Fatalf("ids %s %s %s", s.ID(), v.ID, pair.ID)
	}
	if _, err := keys.LoadSigner(ctx, prefix+".key", keys.StaticPass([]byte("wrong")), nil); !errors.Is(err, keys.ErrKey) {
		t.Fatalf("wrong password: %v", err)
	}
	env := map[string]string{"K": string(pair.PrivatePEM), "P": string(pair.PublicPEM)}
	getenv := func(k string) string { return env[k] }
	if s2, err := keys.LoadSigner(ctx, "env://K", keys.StaticPass([]byte("pw")), getenv); err != nil || s2.ID() != pair.ID {
		t.Fatalf("env:// signer: %v", err)
	}
	if v2, err := keys.LoadVerifier(ctx, "env://P", getenv); err != nil || v2.ID != pair.ID {
		t.Fatalf("env:// verifier: %v", err)
	}
	if _, err := keys.LoadVerifier(ctx, "env://MISSING", getenv); !errors.Is(err, keys.ErrKey) {
		t.Fatalf("missing env: %v", err)
	}
	if _, err := keys.LoadVerifier(ctx, "https://example.com/k.pub", getenv); !errors.Is(err, keys.ErrKey) {
		t.Fatalf("URL keys must be refused (no network): %v", err)
	}
	// A KMS scheme without its provider linked in is a clear error.
	if _, err := keys.LoadVerifier(ctx, "awskms:///alias/x", getenv); !errors.Is(err, keys.ErrKey) {
		t.Fatalf("kms: %v", err)
	}
}

// TestReadSignerThenUnlock: ReadSigner fails at once on what it reads (a
// missing file, an empty variable, a password that cannot be had) and asks
// for the password exactly once; it does not decrypt, so a wrong password
// fails only at Unlock, with ErrKey.
func TestReadSignerThenUnlock(t *testing.T) {
	ctx := context.Background()
	prefix := filepath.Join(t.TempDir(), "k")
	pair, err := keys.WriteKeyPair(prefix, keys.StaticPass([]byte("pw")))
	if err != nil {
		t.Fatal(err)
	}
	noPass := errors.New("no password here")
	tests := []struct {
		name      string
		ref       string
		pass      string // "" makes the PassFunc fail
		readErr   error
		unlockErr error
	}{
		{"key file", prefix + ".key", "pw", nil, nil},
		{"wrong password", prefix + ".key", "wrong", nil, keys.ErrKey},
		{"no password", prefix + ".key", "", noPass, nil},
		{"missing file", prefix + ".nope", "pw", os.ErrNotExist, nil},
		{"env key", "env://K", "pw", nil, nil},
		{"empty variable", "env://EMPTY", "pw", keys.ErrKey, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := 0
			pf := func(bool) ([]byte, error) {
				asked++
				if tt.pass == "" {
					return nil, noPass
				}
				return []byte(tt.pass), nil
			}
			getenv := func(k string) string { return map[string]string{"K": string(pair.PrivatePEM)}[k] }
			l, err := keys.ReadSigner(tt.ref, pf, getenv)
			if tt.readErr != nil {
				if !errors.Is(err, tt.readErr) {
					t.Fatalf("read: %v, want %v", err, tt.readErr)
				}
				return
			}
			if err != nil || asked != 1 {
				t.Fatalf("read: %v, password asked %d times", err, asked)
			}
			s, err := l.Unlock(ctx)
			if tt.unlockErr != nil {
				if !errors.Is(err, tt.unlockErr) {
					t.Fatalf("unlock: %v, want %v", err, tt.unlockErr)
				}
				return
			}
			if err != nil || s.ID() != pair.ID || asked != 1 {
				t.Fatalf("unlock: %v (asked %d times)", err, asked)
			}
		})
	}
}
