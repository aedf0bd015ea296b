package interop_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/peertool"
	"github.com/addonpack/addonpack/internal/realregistry"
)

// registries are the two registries every interop flow runs against.
var registries = realregistry.Both()

// signEnv is the environment of commands that unlock a key.
var signEnv = map[string]string{"COSIGN_PASSWORD": "test-password"}

type result struct {
	out, err string
	code     int
}

// addonpack runs the CLI in process, as main does, with env as its environment.
func addonpack(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := commands.Run(context.Background(), commands.Streams{In: strings.NewReader(""), Out: &out, Err: &errb},
		func(k string) string { return env[k] }, args)
	return result{out.String(), errb.String(), code}
}

// must runs the CLI and fails the test unless it exits 0.
func must(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	r := addonpack(t, env, args...)
	if r.code != 0 {
		t.Fatalf("addonpack %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r.out
}

// tool finds a peer binary (see internal/peertool: fails under make test
// when missing).
func tool(t *testing.T, name string) string {
	t.Helper()
	return peertool.Path(t, name)
}

// peer runs a peer binary with a private HOME (and so a private docker
// config unless env sets DOCKER_CONFIG), no proxy, and a timeout.
func peer(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	out, stderr, err := peerRun(t, bin, env, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", filepath.Base(bin), strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// peerRun runs a peer binary as peer does and returns its stdout, its
// stderr and how it ended.
func peerRun(t *testing.T, bin string, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "DOCKER_CONFIG=" + filepath.Join(home, ".docker"),
		"TUF_ROOT=" + filepath.Join(home, "tuf"), "COSIGN_PASSWORD=test-password", "COSIGN_YES=true",
		"SIGSTORE_NO_CACHE=true", "TMPDIR=" + os.TempDir(),
	}, env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	return out.String(), stderr.String(), err
}

// published is an add-on pushed and signed by addonpack.
type published struct {
	dir, src, key string // work dir, add-on source dir, key prefix
	ref, pinned   string // REPO:TAG and REPO@DIGEST
	digest        string
}

// publish scaffolds hello, generates a key, and pushes host/repo:0.1.0 with
// the signature and SLSA provenance in format ("classic" or "bundle").
func publish(t *testing.T, host, repo, format string) published {
	t.Helper()
	dir := t.TempDir()
	p := published{dir: dir, src: filepath.Join(dir, "hello"), key: filepath.Join(dir, "release")}
	must(t, nil, "init", p.src)
	must(t, signEnv, "keygen", "--output-key-prefix", p.key)
	p.ref = host + "/" + repo + ":0.1.0"
	p.pinned = strings.TrimSpace(must(t, signEnv, "push", p.src, p.ref, "--key", p.key+".key", "--signature-format", format))
	p.digest = p.pinned[strings.Index(p.pinned, "@")+1:]
	return p
}

// optionalTool returns a peer binary's path, or "" when it is not installed.
func optionalTool(name string) string { return peertool.Find(name) }
