// Command testprogress reads `go test -json` on stdin and prints what a
// person or a CI log needs while a long suite runs: a line when a package
// starts and ends, the output of every failed test, a line at least every
// 30 seconds naming the packages still running, and at the end the
// closing line "N passed, N failed, N skipped". It exits 1 when a test or
// a package failed (a package can fail with no test: a build error, a
// panic in TestMain, a timeout), or when no test ran at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// event is one line of test2json.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// suite is what has been seen so far.
type suite struct {
	mu                      sync.Mutex
	out                     io.Writer
	passed, failed, skipped int
	badPackages             []string
	running                 map[string]time.Time // package → start
	lines                   map[string][]string  // package/test → output, kept until the test ends
	last                    time.Time            // last line printed
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, 30*time.Second))
}

// run reads test2json from in, reports on out (a line at least every
// quiet while packages run) and returns the exit code.
func run(in io.Reader, out io.Writer, quiet time.Duration) int {
	s := &suite{out: out, running: map[string]time.Time{}, lines: map[string][]string{}, last: time.Now()}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s.heartbeat(done, quiet)
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			s.printf("%s\n", sc.Text()) // not test2json: a build error, passed through
			continue
		}
		s.handle(e)
	}
	close(done)
	<-stopped
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.badPackages) > 0 {
		fmt.Fprintf(s.out, "failed packages: %s\n", strings.Join(s.badPackages, ", "))
	}
	fmt.Fprintf(s.out, "%d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
	if s.passed+s.failed == 0 {
		fmt.Fprintln(s.out, "no test ran")
		return 1
	}
	if s.failed > 0 || len(s.badPackages) > 0 || sc.Err() != nil {
		return 1
	}
	return 0
}

func (s *suite) handle(e event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := e.Package + "/" + e.Test
	switch {
	case e.Action == "start" && e.Test == "":
		s.running[e.Package] = time.Now()
	case e.Action == "output":
		s.lines[key] = append(s.lines[key], e.Output)
		if len(s.lines[key]) > 2000 { // a chatty test: keep the end
			s.lines[key] = s.lines[key][1000:]
		}
	case e.Test != "" && (e.Action == "pass" || e.Action == "skip"):
		if e.Action == "pass" {
			s.passed++
		} else {
			s.skipped++
		}
		delete(s.lines, key)
	case e.Test != "" && e.Action == "fail":
		s.failed++
		s.printLocked("--- FAIL %s %s (%.1fs)\n%s", e.Package, e.Test, e.Elapsed, strings.Join(s.lines[key], ""))
		delete(s.lines, key)
	case e.Test == "" && (e.Action == "pass" || e.Action == "skip"):
		delete(s.running, e.Package)
		if e.Action == "pass" {
			s.printLocked("ok   %s %.1fs\n", e.Package, e.Elapsed)
		}
		delete(s.lines, key)
	case e.Test == "" && e.Action == "fail":
		delete(s.running, e.Package)
		s.badPackages = append(s.badPackages, e.Package)
		s.printLocked("FAIL %s %.1fs\n%s", e.Package, e.Elapsed, strings.Join(s.lines[key], ""))
		delete(s.lines, key)
	}
}

// heartbeat prints the packages still running whenever nothing was printed
// for every.
func (s *suite) heartbeat(done <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every / 6)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			s.mu.Lock()
			if now.Sub(s.last) >= every && len(s.running) > 0 {
				var names []string
				for p, since := range s.running {
					names = append(names, fmt.Sprintf("%s (%s)", p, now.Sub(since).Round(time.Second)))
				}
				slices.Sort(names)
				s.printLocked("... still running: %s; %d tests passed so far\n", strings.Join(names, ", "), s.passed)
			}
			s.mu.Unlock()
		}
	}
}

func (s *suite) printf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.printLocked(format, args...)
}

func (s *suite) printLocked(format string, args ...any) {
	fmt.Fprintf(s.out, format, args...)
	s.last = time.Now()
}
