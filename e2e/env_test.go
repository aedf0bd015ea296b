//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env is what one test drives: the cluster scripts/cluster.sh started, the
// kubectl built beside it (same release as the API server), bin/addonpack and
// an embedded registry of its own on loopback.
type env struct {
	root       string
	kubeconfig string
	kubectl    string
	addonpack  string
	registry   string // host:port, plain HTTP on loopback
	work       string
}

// newEnv fails (never skips) when the cluster or a binary is missing: the
// suite only runs under the e2e tag, and then it must run.
func newEnv(t *testing.T) *env {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{
		root:       root,
		kubeconfig: filepath.Join(root, ".cluster", "kubeconfig"),
		kubectl:    filepath.Join(root, "bin", "cluster", "kubectl"),
		addonpack:  filepath.Join(root, "bin", "addonpack"),
		work:       t.TempDir(),
	}
	if k := os.Getenv("ADDONPACK_E2E_KUBECONFIG"); k != "" {
		e.kubeconfig = k
	}
	for _, f := range []string{e.kubeconfig, e.kubectl, e.addonpack} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("end-to-end suite: %v: run `make e2e` (it builds bin/cluster, bin/addonpack and starts the cluster)", err)
		}
	}
	if _, err := e.run(t, nil, e.kubectl, "--kubeconfig", e.kubeconfig, "get", "--raw", "/readyz"); err != nil {
		t.Fatalf("end-to-end suite: the API server of %s is not ready (make cluster starts it): %v", e.kubeconfig, err)
	}
	e.registry = e.startRegistry(t)
	return e
}

// startRegistry runs `addonpack registry serve` on a port the kernel picks
// and reads the address it reports.
func (e *env) startRegistry(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(e.addonpack, "registry", "serve", "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("addonpack registry serve: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			if a, ok := strings.CutPrefix(s.Text(), "listening on http://"); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("addonpack registry serve reported no address in 30s")
		return ""
	}
}

// run runs a command with stdin, returning stdout; the error carries stderr.
func (e *env) run(t *testing.T, stdin []byte, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = e.root
	cmd.Env = append(os.Environ(), "COSIGN_PASSWORD=e2e-only-password", "XDG_CACHE_HOME="+filepath.Join(e.work, "cache"), "XDG_CONFIG_HOME="+filepath.Join(e.work, "config"))
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// kubectl runs the pinned kubectl against the suite's cluster.
func (e *env) kubectlRun(t *testing.T, stdin []byte, args ...string) (string, error) {
	t.Helper()
	return e.run(t, stdin, e.kubectl, append([]string{"--kubeconfig", e.kubeconfig}, args...)...)
}

func (e *env) mustKubectl(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	out, err := e.kubectlRun(t, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// addonpack runs bin/addonpack; --plain-http because the suite's registry
// is plain HTTP on loopback and Flux must be told so too (insecure: true).
func (e *env) mustAddonpack(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.run(t, nil, e.addonpack, append([]string{"--plain-http"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// eventually polls check every second until it returns true, logging what
// it waits for every 15 seconds, and fails the test after timeout with the
// last state check reported.
func eventually(t *testing.T, what string, timeout time.Duration, check func() (bool, string)) {
	t.Helper()
	start := time.Now()
	lastLog := start
	for {
		ok, state := check()
		if ok {
			return
		}
		if time.Since(start) > timeout {
			t.Fatalf("%s: not after %s; last state: %s", what, timeout, state)
		}
		if time.Since(lastLog) >= 15*time.Second {
			t.Logf("still waiting for %s (%s so far): %s", what, time.Since(start).Round(time.Second), state)
			lastLog = time.Now()
		}
		time.Sleep(time.Second)
	}
}
