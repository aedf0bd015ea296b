package tufroot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestFetchRefusesHostileRepository: a TUF repository that rolls a role
// back, freezes on expired metadata, mixes files of another repository or
// another version in, or serves a root signed by keys the current root does
// not list is refused with its class (exit 9, or 7 where the signed length
// or hashes catch it first), and nothing is written. Within one fetch is
// what holds: nothing is cached, so a rollback across runs to older, still
// valid metadata is not detected (README).
func TestFetchRefusesHostileRepository(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	good := map[string][]byte{Target: raw}
	served := func(o testsigstore.TUFOptions) *testsigstore.TUFRepository {
		return testsigstore.StartTUFRepository(t, good, o)
	}
	past := time.Now().Add(-time.Minute)
	// mixed serves at each path of paths the file another repository
	// (with the same options) serves there.
	mixed := func(o testsigstore.TUFOptions, paths ...string) *testsigstore.TUFRepository {
		r, other := served(o), served(o)
		for _, p := range paths {
			r.Serve(p, other.File(p))
		}
		return r
	}
	hashes := testsigstore.TUFOptions{MetaHashes: true}
	for _, tc := range []struct {
		name  string
		repo  *testsigstore.TUFRepository
		class error
		want  error
		says  string // %s: the repository's URL
	}{
		// Rollback, within the fetch: a role older than its parent names.
		{"snapshot rolled back under a fresh timestamp", served(testsigstore.TUFOptions{StaleSnapshot: true}), errdef.ErrVerification, ErrMetadata, "expected 2, got 1 (the last file fetched: %s/2.snapshot.json)"},
		{"snapshot rolled back, hashes signed", served(testsigstore.TUFOptions{StaleSnapshot: true, MetaHashes: true}), errdef.ErrVerification, ErrMetadata, "%s/2.snapshot.json"},
		{"targets rolled back under the snapshot", served(testsigstore.TUFOptions{StaleTargets: true}), errdef.ErrVerification, ErrMetadata, "%s/2.targets.json"},
		{"root 2 states version 1", served(testsigstore.TUFOptions{NextRoot: testsigstore.RootRollback}), errdef.ErrVerification, ErrMetadata, "%s/2.root.json"},
		// Freeze: expired metadata of every role.
		{"timestamp expired", served(testsigstore.TUFOptions{TimestampExpires: past}), errdef.ErrVerification, ErrMetadata, "expired"},
		{"snapshot expired", served(testsigstore.TUFOptions{SnapshotExpires: past}), errdef.ErrVerification, ErrMetadata, "snapshot.json is expired"},
		{"targets expired", served(testsigstore.TUFOptions{TargetsExpires: past}), errdef.ErrVerification, ErrMetadata, "targets is expired"},
		{"root expired", served(testsigstore.TUFOptions{RootExpires: past}), errdef.ErrVerification, ErrMetadata, "root.json is expired"},
		// Mix and match: another repository's files, another root's keys.
		{"targets of another repository", mixed(testsigstore.TUFOptions{}, "1.targets.json"), errdef.ErrVerification, ErrMetadata, "%s/1.targets.json"},
		{"snapshot of another repository", mixed(testsigstore.TUFOptions{}, "1.snapshot.json"), errdef.ErrVerification, ErrMetadata, "%s/1.snapshot.json"},
		{"timestamp of another repository", mixed(testsigstore.TUFOptions{}, "timestamp.json"), errdef.ErrVerification, ErrMetadata, "%s/timestamp.json"},
		{"snapshot and targets of another repository", mixed(testsigstore.TUFOptions{}, "1.snapshot.json", "1.targets.json"), errdef.ErrVerification, ErrMetadata, "%s/1.snapshot.json"},
		{"targets of another repository, hashes signed", mixed(hashes, "1.targets.json"), errdef.ErrIntegrity, ErrMismatch, "%s/1.targets.json"},
		{"snapshot of another repository, hashes signed", mixed(hashes, "1.snapshot.json"), errdef.ErrIntegrity, ErrMismatch, "%s/1.snapshot.json"},
		{"root 2 signed by keys root 1 does not list", served(testsigstore.TUFOptions{NextRoot: testsigstore.RootForeign}), errdef.ErrVerification, ErrMetadata, "%s/2.root.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := FetchFile(context.Background(), Options{URL: tc.repo.URL, InitialRoot: tc.repo.Root}, filepath.Join(dir, Target), false)
			if !errors.Is(err, tc.want) || errdef.ClassOf(err) != tc.class {
				t.Fatalf("got %v (class %v), want %v in class %v", err, errdef.ClassOf(err), tc.want, tc.class)
			}
			says := strings.ReplaceAll(tc.says, "%s", tc.repo.URL) // the file, under the repository's URL
			if !strings.Contains(err.Error(), "TUF repository "+tc.repo.URL) || !strings.Contains(err.Error(), says) {
				t.Errorf("message does not name the repository and say %q: %v", says, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// TestFetchStopsEndlessData: a metadata file or the target served without
// end, announcing more than allowed, or decompressing without end (the
// transport undoes gzip, and the bound applies after it) is refused at its bound (the
// signed length, go-tuf's maximum for the role, at most 5 MiB) as a
// length mismatch (exit 7): the server saw the client hang up long before
// testsigstore.EndlessCap, and nothing is written.
func TestFetchStopsEndlessData(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	for _, tc := range []struct {
		name     string
		o        testsigstore.TUFOptions
		path     string // "" for the target
		declared int64  // -1: gzip-encoded, a decompression bomb
	}{
		{"timestamp without end", testsigstore.TUFOptions{}, "timestamp.json", 0},
		{"timestamp announcing 1 TiB", testsigstore.TUFOptions{}, "timestamp.json", 1 << 40},
		{"snapshot without end", testsigstore.TUFOptions{}, "1.snapshot.json", 0},
		{"snapshot longer than its signed length", testsigstore.TUFOptions{MetaHashes: true}, "1.snapshot.json", 0},
		{"targets without end", testsigstore.TUFOptions{}, "1.targets.json", 0},
		{"targets longer than signed, announced", testsigstore.TUFOptions{MetaHashes: true}, "1.targets.json", 1 << 30},
		{"root 2 without end", testsigstore.TUFOptions{NextRoot: testsigstore.RootRollback}, "2.root.json", 0},
		{"target without end", testsigstore.TUFOptions{}, "", 0},
		{"target announcing 1 GiB", testsigstore.TUFOptions{}, "", 1 << 30},
		{"timestamp as a gzip bomb", testsigstore.TUFOptions{}, "timestamp.json", -1},
		{"targets as a gzip bomb", testsigstore.TUFOptions{}, "1.targets.json", -1},
		{"target as a gzip bomb", testsigstore.TUFOptions{}, "", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testsigstore.StartTUFRepository(t, map[string][]byte{Target: raw}, tc.o)
			path := tc.path
			if path == "" {
				path = repo.TargetPath(Target)
			}
			if tc.declared < 0 {
				repo.ServeGzipBomb(path)
			} else {
				repo.ServeEndless(path, tc.declared)
			}
			dir := t.TempDir()
			_, err := FetchFile(context.Background(), Options{URL: repo.URL, InitialRoot: repo.Root}, filepath.Join(dir, Target), false)
			if !errors.Is(err, ErrMismatch) || errdef.ClassOf(err) != errdef.ErrIntegrity || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v (class %v), want ErrMismatch naming %s", err, errdef.ClassOf(err), path)
			}
			if w := repo.Written(path); w == 0 || w >= testsigstore.EndlessCap {
				t.Fatalf("the server wrote %d bytes of %s: want some, and the client gone before %d", w, path, testsigstore.EndlessCap)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// TestFetchGivesUpOnSlowLoris: a file that stalls halfway, or trickles a
// byte at a time without end, fails as unreachable (exit 5) after the
// request timeout, however steadily the bytes come; nothing is written.
func TestFetchGivesUpOnSlowLoris(t *testing.T) {
	raw := testsigstore.NewTrustedRootJSON(t)
	for _, tc := range []struct {
		name    string
		path    string // "" for the target
		trickle time.Duration
	}{
		{"timestamp stalls", "timestamp.json", 0},
		{"timestamp trickles", "timestamp.json", 20 * time.Millisecond},
		{"snapshot trickles", "1.snapshot.json", 20 * time.Millisecond},
		{"target stalls", "", 0},
		{"target trickles", "", 20 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testsigstore.StartTUFRepository(t, map[string][]byte{Target: raw}, testsigstore.TUFOptions{})
			path := tc.path
			if path == "" {
				path = repo.TargetPath(Target)
			}
			repo.ServeStalled(path, tc.trickle)
			dir := t.TempDir()
			_, err := FetchFile(context.Background(), Options{URL: repo.URL, InitialRoot: repo.Root, Timeout: 300 * time.Millisecond}, filepath.Join(dir, Target), false)
			if !errors.Is(err, ErrUnreachable) || errdef.ClassOf(err) != errdef.ErrUnreachable || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v (class %v), want ErrUnreachable naming %s", err, errdef.ClassOf(err), path)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
