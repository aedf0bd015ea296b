package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name, in, line string
		ok             bool
	}{
		{
			name: "all pass",
			in: `{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"waiting\n"}
{"Action":"pass","Test":"TestA/sub"}
{"Action":"pass","Test":"TestA"}
{"Action":"pass"}`,
			line: "2 passed, 0 failed", ok: true,
		},
		{
			name: "a subtest fails",
			in: `{"Action":"pass","Test":"TestA"}
{"Action":"fail","Test":"TestB/wrong key"}
{"Action":"fail","Test":"TestB"}
{"Action":"fail"}`,
			line: "1 passed, 2 failed: TestB, TestB/wrong key", ok: false,
		},
		{
			name: "build failure, no test",
			in: `# github.com/addonpack/addonpack/e2e
e2e/x_test.go:1: syntax error
{"Action":"fail"}`,
			line: "0 passed, 0 failed (the package failed outside any test: build error, panic or timeout) (no test ran)", ok: false,
		},
		{
			name: "nothing ran",
			in:   `{"Action":"pass"}`,
			line: "0 passed, 0 failed (no test ran)", ok: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s, err := summarize(strings.NewReader(tt.in), &out)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.line(); got != tt.line {
				t.Errorf("line %q, want %q", got, tt.line)
			}
			if s.ok() != tt.ok {
				t.Errorf("ok %v, want %v", s.ok(), tt.ok)
			}
		})
	}
	var out bytes.Buffer
	if _, err := summarize(strings.NewReader("plain line\n{\"Action\":\"output\",\"Output\":\"from a test\\n\"}\n"), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "plain line\nfrom a test\n" {
		t.Errorf("copied output %q", out.String())
	}
}
