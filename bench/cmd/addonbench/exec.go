package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ---- running commands ----

type result struct {
	wall           time.Duration
	rssKB          int64
	stdout, stderr string
}

// exec runs a command with the harness environment and returns its wall time
// and peak RSS (the rusage wait4 reports for the child: its own and its
// waited-for descendants' maximum).
func (h *harness) exec(extraEnv []string, dir, name string, args ...string) (result, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(append([]string{}, h.env...), extraEnv...)
	if name == "go" {
		cmd.Env = nil // the caller's environment: its Go build cache and module cache
	}
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	resetPeakRSS() // or the child's peak would start at the harness's
	t0 := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(t0), stdout: out.String(), stderr: errb.String()}
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.rssKB = ru.Maxrss
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(name), strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	return r, nil
}

// pipeline runs steps in order, summing wall time, keeping the largest RSS.
type pipeline struct {
	h     *harness
	wall  time.Duration
	rss   int64
	steps map[string]time.Duration
	err   error
	last  result
}

func (p *pipeline) step(label, dir, name string, args ...string) string {
	if p.err != nil {
		return ""
	}
	r, err := p.h.exec(nil, dir, name, args...)
	p.wall += r.wall
	p.rss = max(p.rss, r.rssKB)
	if p.steps == nil {
		p.steps = map[string]time.Duration{}
	}
	p.steps[label] += r.wall
	p.err, p.last = err, r
	return strings.TrimSpace(r.stdout)
}

func (h *harness) newPipeline() *pipeline { return &pipeline{h: h} }
