package cache_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/errdef"
)

func TestOpenFlags(t *testing.T) {
	dir := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name      string
		f         cache.Flags
		wantCache bool
		wantErr   string
		wantWarn  string
	}{
		{name: "no cache", f: cache.Flags{NoCache: true}},
		{name: "no cache offline", f: cache.Flags{NoCache: true, Offline: true}, wantErr: "--offline needs the cache: drop --no-cache"},
		{name: "dir", f: cache.Flags{Dir: filepath.Join(dir, "c")}, wantCache: true},
		{name: "default", f: cache.Flags{Getenv: env(map[string]string{"XDG_CACHE_HOME": dir})}, wantCache: true},
		{name: "no home", f: cache.Flags{}, wantWarn: "Warning: running without a cache: neither XDG_CACHE_HOME nor HOME is set: pass --cache-dir\n"},
		{name: "no home offline", f: cache.Flags{Offline: true}, wantErr: "neither XDG_CACHE_HOME nor HOME is set: pass --cache-dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warn bytes.Buffer
			tc.f.Warnings = &warn
			if tc.f.Getenv == nil {
				tc.f.Getenv = env(nil)
			}
			c, err := cache.OpenFlags(tc.f)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if tc.f.NoCache && !errors.Is(err, errdef.ErrUsage) {
					t.Fatalf("err %v: not a usage error", err)
				}
			case err != nil:
				t.Fatal(err)
			case (c != nil) != tc.wantCache:
				t.Fatalf("cache %v, want one: %v", c, tc.wantCache)
			}
			if warn.String() != tc.wantWarn {
				t.Fatalf("warnings %q, want %q", warn.String(), tc.wantWarn)
			}
		})
	}
}
