package tufroot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// TestFetchFile: through a real TUF repository on loopback, the trusted
// root is written byte for byte, the digest returned is the file's, and
// pkg/verify loads it pinned by that digest.
func TestFetchFile(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{Target: raw, "other.json": []byte("{}")}, testsigstore.TUFOptions{})
	out := filepath.Join(t.TempDir(), "trusted_root.json")
	digest, err := FetchFile(context.Background(), Options{URL: repo.URL, InitialRoot: repo.Root}, out, false)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	sum := sha256.Sum256(got)
	if !bytes.Equal(got, raw) || digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("wrote %d bytes (want %d), digest %s, file's sha256:%x", len(got), len(raw), digest, sum)
	}
	if _, err := verify.LoadTrustedRoot("fetched", out, digest); err != nil {
		t.Fatalf("load pinned: %v", err)
	}
	// An existing file is refused before anything is fetched, and kept.
	if _, err := FetchFile(context.Background(), Options{URL: "http://127.0.0.1:1", InitialRoot: repo.Root}, out, false); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("over an existing file: %v", err)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, raw) {
		t.Fatal("existing file changed")
	}
	if _, err := FetchFile(context.Background(), Options{URL: repo.URL, InitialRoot: repo.Root}, out, true); err != nil {
		t.Fatalf("--force: %v", err)
	}
}

// TestFetchRefusals: each failure of the repository or of the options
// has its class, and leaves nothing in the output directory.
func TestFetchRefusals(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	served := func(o testsigstore.TUFOptions, targets map[string][]byte) *testsigstore.TUFRepository {
		return testsigstore.StartTUFRepository(t, targets, o)
	}
	good := map[string][]byte{Target: raw}
	tampered := served(testsigstore.TUFOptions{}, good)
	flipped := bytes.Clone(raw)
	flipped[len(flipped)/2] ^= 1
	tampered.ReplaceTarget(Target, flipped)
	longer := served(testsigstore.TUFOptions{}, good)
	longer.ReplaceTarget(Target, append(bytes.Clone(raw), ' '))
	expired := served(testsigstore.TUFOptions{TimestampExpires: time.Now().Add(-time.Hour)}, good)
	foreign := served(testsigstore.TUFOptions{ForeignTimestampKey: true}, good)
	missing := served(testsigstore.TUFOptions{}, map[string][]byte{"other.json": raw})
	notARoot := served(testsigstore.TUFOptions{}, map[string][]byte{Target: []byte(`{"mediaType": "something else"}`)})
	other := served(testsigstore.TUFOptions{}, good)
	malformed := served(testsigstore.TUFOptions{}, good)
	malformed.Serve("timestamp.json", []byte(`{"signed": 1, "signatures": []}`))

	for _, tc := range []struct {
		name  string
		o     Options
		class error // the errdef class
		want  error // this package's sentinel (or verify's)
	}{
		{"target tampered, same length", Options{URL: tampered.URL, InitialRoot: tampered.Root}, errdef.ErrIntegrity, ErrMismatch},
		{"target tampered, longer", Options{URL: longer.URL, InitialRoot: longer.Root}, errdef.ErrIntegrity, ErrMismatch},
		{"timestamp expired", Options{URL: expired.URL, InitialRoot: expired.Root}, errdef.ErrVerification, ErrMetadata},
		{"timestamp signed by a foreign key", Options{URL: foreign.URL, InitialRoot: foreign.Root}, errdef.ErrVerification, ErrMetadata},
		{"timestamp malformed", Options{URL: malformed.URL, InitialRoot: malformed.Root}, errdef.ErrVerification, ErrMetadata},
		{"initial root of another repository", Options{URL: tampered.URL, InitialRoot: other.Root}, errdef.ErrVerification, ErrMetadata},
		{"target not listed", Options{URL: missing.URL, InitialRoot: missing.Root}, errdef.ErrNotFound, ErrNoTarget},
		{"target not a trusted root", Options{URL: notARoot.URL, InitialRoot: notARoot.Root}, errdef.ErrInvalid, verify.ErrPolicy},
		{"URL without its initial root", Options{URL: tampered.URL}, errdef.ErrInvalidArgument, ErrOptions},
		{"plain http off loopback", Options{URL: "http://tuf.example.com", InitialRoot: other.Root}, errdef.ErrInvalidArgument, ErrOptions},
		{"initial root not TUF", Options{URL: other.URL, InitialRoot: raw}, errdef.ErrInvalid, ErrInitialRoot},
		{"initial root not JSON", Options{URL: other.URL, InitialRoot: []byte("root")}, errdef.ErrInvalid, ErrInitialRoot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := FetchFile(context.Background(), tc.o, filepath.Join(dir, "trusted_root.json"), false)
			if !errors.Is(err, tc.want) || errdef.ClassOf(err) != tc.class {
				t.Fatalf("got %v (class %v), want %v in class %v", err, errdef.ClassOf(err), tc.want, tc.class)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
			if tc.want != ErrInitialRoot {
				return
			}
			// FetchFiles names the file the initial root came from.
			o := tc.o
			o.InitialRootFile = "tuf-root.json"
			_, err = FetchFiles(context.Background(), o, filepath.Join(dir, "trusted_root.json"), "", false)
			if !errors.Is(err, ErrInitialRoot) || !strings.HasPrefix(err.Error(), "--tuf-root tuf-root.json: ") {
				t.Fatalf("FetchFiles: %v, want it to name --tuf-root tuf-root.json", err)
			}
		})
	}
}

// TestFetchUnreachable: a server that drops connections and one that never
// answers both fail as ErrUnreachable, the second within the timeout.
func TestFetchUnreachable(t *testing.T) {
	root := testsigstore.StartTUFRepository(t, nil, testsigstore.TUFOptions{}).Root
	listen := func(handle func(net.Conn)) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go handle(c)
			}
		}()
		return "http://" + l.Addr().String()
	}
	stalled := make(chan struct{})
	t.Cleanup(func() { close(stalled) })
	drops := listen(func(c net.Conn) { c.Close() })
	stalls := listen(func(c net.Conn) { <-stalled; c.Close() })
	for _, url := range []string{drops, stalls} {
		start := time.Now()
		_, err := Fetch(context.Background(), Options{URL: url, InitialRoot: root, Timeout: 300 * time.Millisecond})
		if !errors.Is(err, ErrUnreachable) || errdef.ClassOf(err) != errdef.ErrUnreachable {
			t.Fatalf("%s: %v", url, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%s: took %s", url, d)
		}
		if !strings.Contains(err.Error(), url) {
			t.Fatalf("error does not name the repository: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fetch(ctx, Options{URL: stalls, InitialRoot: root}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestDefaultRepository: without a URL the public-good mirror is used
// with the TUF root sigstore-go embeds, which verifies as root metadata
// (resolved only: this environment does not reach the mirror).
func TestDefaultRepository(t *testing.T) {
	base, initial, err := Options{}.resolve()
	if err != nil || base != DefaultURL || len(initial) == 0 {
		t.Fatalf("%s %d %v", base, len(initial), err)
	}
	if _, _, err := (Options{URL: DefaultURL + "/"}).resolve(); err != nil {
		t.Fatalf("default URL with a slash: %v", err)
	}
}
