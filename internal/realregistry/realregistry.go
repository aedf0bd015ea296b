// Package realregistry starts the CNCF distribution registry (Debian's
// docker-registry package, version 2.8: no referrers API, no sha512) on a
// free loopback port for tests, so that every flow is proven against a real
// registry and not only against addonpack's own.
package realregistry

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Binary is where Debian installs the registry; ADDONPACK_DOCKER_REGISTRY overrides it.
const Binary = "/usr/bin/docker-registry"

// Options tune the registry.
type Options struct {
	// Htpasswd, when set, is a bcrypt htpasswd file that enables basic auth.
	Htpasswd string
	// NoDelete leaves storage.delete disabled, as distribution ships: every
	// DELETE is then refused with 405 UNSUPPORTED.
	NoDelete bool
}

var listening = regexp.MustCompile(`listening on (127\.0\.0\.1:[0-9]+)`)

// Start runs the registry with a temporary storage directory on a free port
// (it binds 127.0.0.1:0 and reports the port it got) and returns host:port.
// The test fails, loudly, when the binary is missing: `make test` installs it.
func Start(t testing.TB, opts Options) string {
	t.Helper()
	bin := os.Getenv("ADDONPACK_DOCKER_REGISTRY")
	if bin == "" {
		bin = Binary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the real-registry tests need CNCF distribution at %s (%v): run `make test`, which installs it, or `apt-get install -y docker-registry`", bin, err)
	}
	dir := t.TempDir()
	config := fmt.Sprintf(`version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: %t
http:
  addr: 127.0.0.1:0
  secret: addonpack-test
`, filepath.Join(dir, "data"), !opts.NoDelete)
	if opts.Htpasswd != "" {
		config += fmt.Sprintf("auth:\n  htpasswd:\n    realm: addonpack-test\n    path: %s\n", opts.Htpasswd)
	}
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", cfgPath)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if !sent {
				if m := listening.FindStringSubmatch(sc.Text()); m != nil {
					found <- m[1]
					sent = true
				}
			}
		}
	}()
	select {
	case host := <-found:
		return host
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not report its address within 20s", bin)
	}
	return ""
}
