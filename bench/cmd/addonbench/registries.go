package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// ---- registries ----

var listening = regexp.MustCompile(`listening on (?:https?://)?(127\.0\.0\.1:[0-9]+)`)

func (h *harness) startDistribution() (string, func(), error) {
	bin := os.Getenv("ADDONPACK_DOCKER_REGISTRY")
	if bin == "" {
		bin = "/usr/bin/docker-registry"
	}
	dir := filepath.Join(h.work, "distribution")
	os.MkdirAll(dir, 0o755)
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: info\n  formatter: text\nstorage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:0\n  secret: addonbench\n", filepath.Join(dir, "data"))
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return "", nil, err
	}
	return startServer(bin, "serve", cfgPath)
}

func (h *harness) startTestregistry() (string, func(), error) {
	return startServer(h.ap, "registry", "serve", "--addr", "127.0.0.1:0", "--root", filepath.Join(h.work, "testregistry"))
}

// startServer starts a registry, reads host:port from its stderr, and keeps
// draining the log so the server never blocks on a full pipe.
func startServer(bin string, args ...string) (string, func(), error) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); !sent && m != nil {
				found <- m[1]
				sent = true
			}
		}
	}()
	select {
	case host := <-found:
		return host, stop, nil
	case <-time.After(20 * time.Second):
		stop()
		return "", nil, fmt.Errorf("%s did not report its address within 20s", bin)
	}
}
