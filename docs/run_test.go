package docs_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/addonpack/addonpack/internal/peertool"
)

// recipes are commands the documents must show in a block that runs: the
// air-gap recipes of issue 30, which once failed as written.
var recipes = map[string][]string{
	"docs/air-gap.md": {
		"addonpack copy localhost:5000/addons/hello:0.1.0 --to-tarball hello.tar --key release.pub --images",
		"addonpack copy --from-tarball hello.tar localhost:5002/addons/hello --key release.pub --images",
	},
	"docs/stacks.md": {
		"addonpack copy --stack addons.yaml --to-tarball stack.tar --policy policy.yaml",
		"addonpack render --stack site/addons.yaml --policy policy.yaml | kubectl apply --server-side -f -",
	},
}

// peers are the CLIs a block may call that the tests install beside
// addonpack (scripts/install-peers.sh, scripts/ensure-tools.sh).
var peers = []string{peertool.Cosign2, peertool.Cosign3, "oras", "crane", "skopeo"}

// TestDocBlocks runs the shell blocks of README.md and docs/*.md. README.md
// runs in an empty directory, where its quick start starts the registry it
// names (localhost:5000, a free port here). Every docs/ page runs in the
// world the quick start leaves, made afresh for it (world.go):
// localhost:5000, 5001 and 5002 are three registries (free ports here; the
// commands are run with the ports replaced, nothing else).
func TestDocBlocks(t *testing.T) {
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{"../README.md"}, docs...)
	total, blocksRun, skipped := 0, 0, 0
	start := time.Now()
	for _, path := range docs {
		name := strings.TrimPrefix(filepath.ToSlash(filepath.Join("docs", path)), "docs/../")
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := shellBlocks(string(raw))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var run []command
		for _, b := range blocks {
			if b.notRun != "" {
				skipped++
				continue
			}
			run = append(run, b.commands()...)
			blocksRun++
		}
		for _, want := range recipes[name] {
			if !slices.ContainsFunc(run, func(c command) bool { return c.text == want }) {
				t.Errorf("%s: no block that runs shows %q", name, want)
			}
		}
		if len(run) == 0 {
			continue
		}
		total += len(run)
		t.Run(filepath.Base(name), func(t *testing.T) {
			begun := time.Now()
			var ports []string
			var dir string
			if name == "README.md" {
				dir, ports = t.TempDir(), []string{freePort(t)}
			} else {
				dir, ports = newWorld(t)
			}
			runCommands(t, name, dir, ports, run)
			t.Logf("%s: %d commands in %s", name, len(run), time.Since(begun).Round(time.Millisecond))
		})
	}
	t.Logf("%d commands in %d blocks run, %d blocks marked not-run, in %s", total, blocksRun, skipped, time.Since(start).Round(time.Second))
	if total < 50 {
		t.Errorf("only %d commands run", total)
	}
}

var backgrounded = regexp.MustCompile(`[^&]&\s*(#.*)?$`)

// runCommands runs cmds in one bash session in dir, each with
// localhost:500N (and 127.0.0.1:500N) replaced by ports[N], checking each
// command's exit code. It stops at the first command that fails and names
// it, with its output.
func runCommands(t *testing.T, doc, dir string, ports []string, cmds []command) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	link("addonpack", addonpackBin)
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(kubectlStandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	var script strings.Builder
	script.WriteString("set -o pipefail\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n")
	for i, c := range cmds {
		text := c.text
		for n, p := range ports {
			text = strings.ReplaceAll(text, fmt.Sprintf("localhost:500%d", n), "localhost:"+p)
			text = strings.ReplaceAll(text, fmt.Sprintf("127.0.0.1:500%d", n), "127.0.0.1:"+p)
		}
		for _, p := range peersIn(text) {
			link(p, peertool.Path(t, p)) // fails under ADDONPACK_REQUIRE_PEERS=1 (make test), skips loudly otherwise
		}
		out, errf := filepath.Join(logs, fmt.Sprintf("%d.out", i)), filepath.Join(logs, fmt.Sprintf("%d.err", i))
		if backgrounded.MatchString(text) {
			// Started in the background (the quick start's registry): wait
			// until the ports it names listen, as a user would before typing on.
			fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q\n", text, out, errf)
			for _, p := range ports {
				if strings.Contains(text, ":"+p) {
					fmt.Fprintf(&script, "for i in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/%s) 2>/dev/null && break; sleep 0.1; done\n", p)
				}
			}
			continue
		}
		fmt.Fprintf(&script, "{\n%s\n} >%q 2>%q\nrc=$?\nif [ $rc -ne %d ]; then echo \"command %d: exit $rc\" >&2; exit 100; fi\n",
			text, out, errf, c.want, i)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	sh.Dir = dir
	sh.Env = []string{
		"HOME=" + home, "LANG=C.UTF-8", "EDITOR=true", "TERM=dumb",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"PATH=" + bin + string(os.PathListSeparator) + systemPath(),
	}
	if doc != "README.md" {
		sh.Env = append(sh.Env, "COSIGN_PASSWORD="+worldPassword)
	}
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	shLog := filepath.Join(logs, "bash")
	f, err := os.Create(shLog)
	if err != nil {
		t.Fatal(err)
	}
	sh.Stdout, sh.Stderr = f, f
	err = sh.Run()
	f.Close()
	if sh.Process != nil {
		syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) // what the session left running
	}
	if err == nil {
		return
	}
	msg, _ := os.ReadFile(shLog)
	failed := -1
	if _, rest, ok := strings.Cut(string(msg), "command "); ok {
		n, _, _ := strings.Cut(rest, ":")
		failed, _ = strconv.Atoi(n)
	}
	if failed < 0 || failed >= len(cmds) {
		t.Fatalf("%s: the session failed before any command did: %v\n%s", doc, err, msg)
	}
	c := cmds[failed]
	o, _ := os.ReadFile(filepath.Join(logs, fmt.Sprintf("%d.out", failed)))
	e, _ := os.ReadFile(filepath.Join(logs, fmt.Sprintf("%d.err", failed)))
	t.Fatalf("%s line %d: %s\n%s (want exit %d)\nstdout:\n%s\nstderr:\n%s", doc, c.line, c.text, strings.TrimSpace(string(msg)), c.want, tail(o), tail(e))
}

// kubectlStandIn takes the place of kubectl: there is no cluster here (make
// e2e applies the examples to one). It refuses what a cluster would never
// get: apply -f with no objects, apply -k of a directory with no
// kustomization.
const kubectlStandIn = `#!/bin/sh
[ "$1" = apply ] || { echo "kubectl stand-in: only apply is stood in for: $*" >&2; exit 1; }
objects() { grep -Eq '^kind: |"kind": ?"' "$1" || { echo "kubectl stand-in: no objects in $2" >&2; exit 1; }; }
while [ $# -gt 0 ]; do
	case "$1" in
	-k) [ -f "$2/kustomization.yaml" ] || { echo "kubectl stand-in: no kustomization in $2" >&2; exit 1; }; exit 0 ;;
	-f) if [ "$2" = - ]; then in=$(mktemp); cat >"$in"; objects "$in" stdin; rm -f "$in"; else objects "$2" "$2"; fi; exit 0 ;;
	esac
	shift
done
echo "kubectl stand-in: apply without -f or -k" >&2; exit 1
`

// peersIn returns the peer CLIs text calls: a peer's name first in a
// pipeline stage (after VAR=value assignments).
func peersIn(text string) []string {
	var out []string
	for _, stage := range regexp.MustCompile(`\|\|?|&&|;|\n`).Split(text, -1) {
		words := strings.Fields(stage)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) > 0 && slices.Contains(peers, words[0]) && !slices.Contains(out, words[0]) {
			out = append(out, words[0])
		}
	}
	return out
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// systemPath is $PATH without any directory holding another addonpack.
func systemPath() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "addonpack")); d == "" || err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func tail(b []byte) string {
	const max = 4000
	if len(b) > max {
		return "…" + string(b[len(b)-max:])
	}
	return string(b)
}
