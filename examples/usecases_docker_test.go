package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ---------------------------------------------------------------------------
// The Dockerfile and .dockerignore (no Docker engine here: checked, not built)

func TestUseCaseDockerfile(t *testing.T) {
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	type instr struct{ op, args string }
	var (
		stages [][]instr
		global = map[string]string{}
	)
	text := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(string(raw), " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		op, args, _ := strings.Cut(line, " ")
		op = strings.ToUpper(op)
		if op == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if op == "ARG" {
				k, v, _ := strings.Cut(args, "=")
				global[k] = v
			}
			continue
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], instr{op, strings.TrimSpace(args)})
	}
	if len(stages) != 2 {
		t.Fatalf("want a build and a runtime stage, got %d stages", len(stages))
	}
	expand := func(s string) string {
		return regexp.MustCompile(`\$\{?(\w+)\}?`).ReplaceAllStringFunc(s, func(m string) string {
			k := strings.Trim(m, "${}")
			if v, ok := global[k]; ok {
				return v
			}
			return m
		})
	}
	from := func(st []instr) []string { return strings.Fields(expand(st[0].args)) }
	build, runtime := stages[0], stages[1]
	if f := from(build); !slices.Contains(f, "golang:1.26") || f[len(f)-1] != "build" {
		t.Errorf("build stage: FROM %v, want golang:1.26 AS build", f)
	}
	if f := from(runtime); strings.HasPrefix(f[0], "golang") || !strings.HasPrefix(f[0], "alpine:3.") {
		t.Errorf("runtime stage: FROM %v, want a small alpine image (it provides /bin/sh for the Job)", f)
	}
	joined := func(st []instr, op string) string {
		var s []string
		for _, in := range st {
			if in.op == op {
				s = append(s, in.args)
			}
		}
		return strings.Join(s, "\n")
	}
	buildRun := joined(build, "RUN")
	for _, want := range []string{"CGO_ENABLED=0", "go build", "-o /out/addonpack ./cmd/addonpack",
		"https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/${TARGETOS}/${TARGETARCH}", "kubectl.sha256", "sha256sum -c"} {
		if !strings.Contains(buildRun, want) {
			t.Errorf("build stage RUN lacks %q", want)
		}
	}
	if !regexp.MustCompile(`(?m)^KUBECTL_VERSION=v\d+\.\d+\.\d+$`).MatchString(joined(build, "ARG")) {
		t.Errorf("kubectl version not pinned: %q", joined(build, "ARG"))
	}
	if cp := joined(runtime, "COPY"); !strings.Contains(cp, "--from=build /out/addonpack /out/kubectl /usr/local/bin/") {
		t.Errorf("runtime stage COPY: %q", cp)
	}
	users := strings.Fields(joined(runtime, "USER"))
	if len(users) != 1 {
		t.Fatalf("runtime USER: %v", users)
	}
	uid, err := strconv.Atoi(strings.SplitN(users[0], ":", 2)[0])
	if err != nil || uid == 0 {
		t.Errorf("runtime USER %q: want a numeric non-root uid (runAsNonRoot checks it)", users[0])
	}
	// The Job's pod runs as the same uid.
	job, _ := parseJob(t, find(installJob(t), "Job")[0])
	if u := job.Template.Spec.SecurityContext.RunAsUser; u == nil || *u != uid {
		t.Errorf("Job runAsUser %v, image USER %d", u, uid)
	}
	if env := joined(runtime, "ENV"); env != "HOME=/work" {
		t.Errorf("runtime ENV %q: HOME must be the Job's emptyDir /work", env)
	}
	// The build command's target exists in this repository.
	if _, err := os.Stat("../cmd/addonpack/main.go"); err != nil {
		t.Error(err)
	}
}

// TestUseCaseDockerignore: the build context lets through every package and
// embedded file ./cmd/addonpack is built from, and keeps out .git, bin/ and
// private keys.
func TestUseCaseDockerignore(t *testing.T) {
	raw, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if .Module}}{{if eq .Module.Path "github.com/addonpack/addonpack"}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{range .EmbedFiles}} {{.}}{{end}}{{end}}{{end}}`, "./cmd/addonpack")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		rel, err := filepath.Rel(root, f[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range f[1:] {
			needed = append(needed, filepath.ToSlash(filepath.Join(rel, name)))
		}
	}
	if len(needed) < 30 {
		t.Fatalf("go list found only %d files", len(needed))
	}
	for _, p := range needed {
		if dockerIgnored(patterns, p) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", p)
		}
	}
	for _, p := range []string{".git/config", "bin/addonpack", "examples/policies/keys/release.key", "README.md", "pkg/verify/verify_test.go"} {
		if !dockerIgnored(patterns, p) {
			t.Errorf(".dockerignore lets %s into the build context", p)
		}
	}
}

// dockerIgnored applies .dockerignore rules as Docker does: patterns in
// order, the last match wins, a pattern matching a parent directory matches
// everything under it, ! re-includes, ** spans directories.
func dockerIgnored(patterns []string, p string) bool {
	ignored := false
	for _, pat := range patterns {
		neg := strings.HasPrefix(pat, "!")
		pat = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(strings.TrimPrefix(pat, "!"))), "/")
		re := regexp.MustCompile("^" + dockerPatternRE(pat) + "$")
		parts := strings.Split(p, "/")
		for i := len(parts); i > 0; i-- {
			if re.MatchString(strings.Join(parts[:i], "/")) {
				ignored = !neg
				break
			}
		}
	}
	return ignored
}

func dockerPatternRE(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch {
		case strings.HasPrefix(pat[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(pat[i:], "**"):
			b.WriteString(".*")
			i++
		case pat[i] == '*':
			b.WriteString("[^/]*")
		case pat[i] == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	return b.String()
}
