package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type summary struct {
	passed, failed []string
	// packageFailed: a build failure or a panic outside any test reports
	// only the package.
	packageFailed bool
}

// summarize copies every output event to w and counts the tests (subtests
// included) that passed and failed. A line that is not JSON (go's own build
// errors) is copied as is.
func summarize(r io.Reader, w io.Writer) (summary, error) {
	var s summary
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			fmt.Fprintln(w, string(line))
			continue
		}
		switch ev.Action {
		case "output":
			fmt.Fprint(w, ev.Output)
		case "pass":
			if ev.Test != "" {
				s.passed = append(s.passed, ev.Test)
			}
		case "fail":
			if ev.Test != "" {
				s.failed = append(s.failed, ev.Test)
			} else {
				s.packageFailed = true
			}
		}
	}
	return s, sc.Err()
}

func (s summary) ok() bool {
	return len(s.failed) == 0 && !s.packageFailed && len(s.passed) > 0
}

func (s summary) line() string {
	l := fmt.Sprintf("%d passed, %d failed", len(s.passed), len(s.failed))
	if len(s.failed) > 0 {
		failed := append([]string(nil), s.failed...)
		sort.Strings(failed)
		l += ": " + strings.Join(failed, ", ")
	}
	if s.packageFailed && len(s.failed) == 0 {
		l += " (the package failed outside any test: build error, panic or timeout)"
	}
	if len(s.passed)+len(s.failed) == 0 {
		l += " (no test ran)"
	}
	return l
}
