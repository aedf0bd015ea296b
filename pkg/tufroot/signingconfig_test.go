package tufroot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/addonpack/addonpack/internal/testsigstore"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/sign"
)

// TestFetchSigningConfig: the signing config comes through the same TUF
// run as the trusted root, byte for byte, and keyless signing reads it;
// a repository without it, or with one that is not a signing config,
// writes neither file.
func TestFetchSigningConfig(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := testsigstore.StartServers(t, ss)
	root := testsigstore.NewTrustedRootJSON(t)
	sc, err := os.ReadFile(srv.SigningConfigRekorV2File(t))
	if err != nil {
		t.Fatal(err)
	}
	repo := testsigstore.StartTUFRepository(t, map[string][]byte{Target: root, SigningConfigTarget: sc}, testsigstore.TUFOptions{})
	dir := t.TempDir()
	out, scOut := filepath.Join(dir, "trusted_root.json"), filepath.Join(dir, "signing_config.json")
	if _, err := FetchFiles(context.Background(), Options{URL: repo.URL, InitialRoot: repo.Root}, out, scOut, false); err != nil {
		t.Fatal(err)
	}
	gotRoot, _ := os.ReadFile(out)
	gotSC, _ := os.ReadFile(scOut)
	if !bytes.Equal(gotRoot, root) || !bytes.Equal(gotSC, sc) {
		t.Fatalf("wrote root %d bytes (want %d), signing config %d bytes (want %d)", len(gotRoot), len(root), len(gotSC), len(sc))
	}
	k, err := sign.NewKeyless(sign.KeylessConfig{IDToken: "t", SigningConfig: gotSC})
	if err != nil {
		t.Fatal(err)
	}
	if _, logs, _ := k.Services(); len(logs) != 1 || logs[0].URL != srv.RekorV2.URL {
		t.Fatalf("the fetched config chose %v", logs)
	}
	// Either file existing refuses before anything is fetched.
	if _, err := FetchFiles(context.Background(), Options{URL: "http://127.0.0.1:1", InitialRoot: repo.Root}, filepath.Join(dir, "new.json"), scOut, false); !errors.Is(err, errdef.ErrExists) {
		t.Fatalf("over an existing signing config: %v", err)
	}

	for _, tc := range []struct {
		name    string
		targets map[string][]byte
		want    error
	}{
		{"no signing config target", map[string][]byte{Target: root}, ErrNoTarget},
		{"not a signing config", map[string][]byte{Target: root, SigningConfigTarget: []byte(`{"mediaType":"application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`)}, ErrMetadata},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testsigstore.StartTUFRepository(t, tc.targets, testsigstore.TUFOptions{})
			dir := t.TempDir()
			_, err := FetchFiles(context.Background(), Options{URL: r.URL, InitialRoot: r.Root}, filepath.Join(dir, "root.json"), filepath.Join(dir, "sc.json"), false)
			if !errors.Is(err, tc.want) {
				t.Fatalf("want %v, got %v", tc.want, err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("left %d files behind", len(left))
			}
		})
	}
}
