package commands_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// TestRefusedCredentials: a registry that refuses the credentials exits 6
// naming the docker config the credentials were read from and the docker
// login that gives others — the default file under HOME, DOCKER_CONFIG's,
// or --registry-config's.
func TestRefusedCredentials(t *testing.T) {
	reg := testregistry.New(t, testregistry.WithBasicAuth("alice", "s3cret"))
	home := t.TempDir()
	ref := reg.Host() + "/private/hello:0.1.0"
	for _, tc := range []struct {
		env  map[string]string
		args []string
		file string
	}{
		{map[string]string{"HOME": home}, nil, filepath.Join(home, ".docker", "config.json")},
		{map[string]string{"HOME": home, "DOCKER_CONFIG": filepath.Join(home, "dc")}, nil, filepath.Join(home, "dc", "config.json")},
		{map[string]string{"HOME": home}, []string{"--registry-config", filepath.Join(home, "ci.json")}, filepath.Join(home, "ci.json")},
	} {
		r := run(t, tc.env, append([]string{"inspect", ref}, tc.args...)...)
		if r.code != commands.ExitDenied || !strings.Contains(r.err, "credentials read from "+tc.file) || !strings.Contains(r.err, "docker login "+reg.Host()) {
			t.Errorf("%v %v: exit %d, want %d naming %s and docker login %s:\n%s", tc.env, tc.args, r.code, commands.ExitDenied, tc.file, reg.Host(), r.err)
		}
	}
}
