package registry_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
)

func TestDockerConfigPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"DOCKER_CONFIG": "/d", "HOME": "/h"}, filepath.Join("/d", "config.json")},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".docker", "config.json")},
		{nil, ""},
	} {
		if got := registry.DockerConfigPath(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestLoadCAFile(t *testing.T) {
	if p, err := registry.LoadCAFile(""); p != nil || err != nil {
		t.Fatalf("no file: %v, %v", p, err)
	}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{notPEM, filepath.Join(t.TempDir(), "missing.pem")} {
		if _, err := registry.LoadCAFile(f); err == nil || !errors.Is(err, errdef.ErrUsage) {
			t.Errorf("%s: %v, want a usage error", f, err)
		}
	}
	if err := registry.CheckReadTimeout(-time.Second); err == nil || err.Error() != "--read-timeout -1s: want a positive duration (0 for the default, "+registry.DefaultReadTimeout.String()+")" || !errors.Is(err, errdef.ErrUsage) {
		t.Errorf("negative read timeout: %v", err)
	}
	if err := registry.CheckReadTimeout(0); err != nil {
		t.Errorf("0: %v", err)
	}
}
