package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRun: passes, skips and failures are counted in the closing line; a
// failed test's output is shown; a package failing without a test (a build
// error) fails the run; lines that are not test2json pass through.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     int
		want     []string
	}{
		{"all pass", `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"noise\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"pass","Package":"p","Elapsed":1.5}
`, 0, []string{"ok   p 1.5s", "1 passed, 0 failed, 1 skipped"}},
		{"a failed test", `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: got 2, want 3\n"}
{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.2}
{"Action":"pass","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p","Elapsed":0.3}
`, 1, []string{"--- FAIL p TestA (0.2s)", "got 2, want 3", "FAIL p", "failed packages: p", "1 passed, 1 failed, 0 skipped"}},
		{"a build error", `# q
q/x.go:1:1: syntax error
{"Action":"start","Package":"q"}
{"Action":"output","Package":"q","Output":"FAIL\tq [build failed]\n"}
{"Action":"fail","Package":"q"}
`, 1, []string{"q/x.go:1:1: syntax error", "FAIL q", "[build failed]", "0 passed, 0 failed, 0 skipped"}},
		{"no test at all", `{"Action":"start","Package":"p"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p"}
`, 1, []string{"0 passed, 0 failed, 1 skipped", "no test ran"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run(strings.NewReader(tc.in), &out, time.Hour); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "noise") {
				t.Errorf("a passing test's output was shown:\n%s", out.String())
			}
		})
	}
}

// TestHeartbeat: while a package runs and nothing else is printed, a line
// names it at least every quiet period.
func TestHeartbeat(t *testing.T) {
	r, w := io.Pipe()
	var out syncBuffer
	done := make(chan int)
	go func() { done <- run(r, &out, 60*time.Millisecond) }()
	io.WriteString(w, `{"Action":"start","Package":"slow"}`+"\n")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "still running: slow") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(w, `{"Action":"pass","Package":"slow","Test":"TestSlow"}`+"\n")
	io.WriteString(w, `{"Action":"pass","Package":"slow"}`+"\n")
	w.Close()
	if code := <-done; code != 0 || !strings.Contains(out.String(), "still running: slow") {
		t.Fatalf("exit %d, output:\n%s", code, out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the heartbeat and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHeartbeatScript: scripts/heartbeat.sh, which wraps the Makefile's
// long compiles, says what it runs, then a line per quiet period while the
// command runs, and exits with the command's status.
func TestHeartbeatScript(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		code int
		min  int // "still running" lines at least
	}{
		{[]string{"sleep", "3"}, 0, 2},
		{[]string{"sh", "-c", "exit 7"}, 7, 0},
	} {
		cmd := exec.Command("../../scripts/heartbeat.sh", append([]string{"compiling x"}, tc.cmd...)...)
		cmd.Env = append(os.Environ(), "HEARTBEAT_SECONDS=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(stderr.String(), "compiling x: still running")
		if code != tc.code || !strings.HasPrefix(stderr.String(), "compiling x\n") || lines < tc.min {
			t.Errorf("%v: exit %d (want %d), %d heartbeat lines (want at least %d):\n%s", tc.cmd, code, tc.code, lines, tc.min, stderr.String())
		}
	}
}
