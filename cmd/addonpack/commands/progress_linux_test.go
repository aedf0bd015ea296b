package commands_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/testregistry"
)

// runWithStderr runs the CLI in process with stderr a real file: one end of
// a pseudo-terminal or of a pipe. It returns what was written there.
func runWithStderr(t *testing.T, stderr, reader *os.File, args ...string) (string, int) {
	t.Helper()
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, reader) // a pty's master reads EIO once the terminal closes
		got <- b.String()
	}()
	var out bytes.Buffer
	code := commands.Run(context.Background(), commands.Streams{In: strings.NewReader(""), Out: &out, Err: stderr},
		func(string) string { return "" }, args)
	stderr.Close()
	return <-got, code
}

// openPty opens a pseudo-terminal of 120x40, or unsized with cols 0.
func openPty(t *testing.T, cols ...uint16) (term, master *os.File) {
	t.Helper()
	master, term, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	size := &pty.Winsize{Rows: 40, Cols: 120}
	if len(cols) > 0 {
		size.Cols = cols[0]
	}
	if err := pty.Setsize(master, size); err != nil {
		t.Fatal(err)
	}
	return term, master
}

// counts matches the bytes counter of a transfer line: "2.9 MiB / 5.9 MiB".
var counts = regexp.MustCompile(`(\d+\.\d) MiB / (\d+\.\d) MiB`)

// TestProgressOnTerminalOnly pushes an add-on of several MiB under a
// pseudo-terminal (its packing and upload are drawn), then pulls it from a
// registry that stalls halfway through the layer (the pull resumes after
// --read-timeout): under a pseudo-terminal stderr shows the layer's line
// with a count short of its size and then its end; through a pipe, and
// with --quiet, stderr has neither the line nor an escape code.
func TestProgressOnTerminalOnly(t *testing.T) {
	st := testregistry.NewMemoryStorage()
	reg := testregistry.New(t, testregistry.WithStorage(st))
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	run(t, nil, "init", src)
	noise := make([]byte, 6<<20)
	rand.Read(noise)
	if err := os.WriteFile(filepath.Join(src, "payload.txt"), []byte(base64.StdEncoding.EncodeToString(noise)), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := reg.Host() + "/addons/hello:0.1.0"
	term, master := openPty(t)
	got, code := runWithStderr(t, term, master, "push", src, ref)
	if code != 0 || !strings.Contains(got, "Packing "+src) || !strings.Contains(got, "Uploading") {
		t.Fatalf("push under a terminal: exit %d, no packing or upload line drawn:\n%q", code, got)
	}
	var info struct{ Layers []struct{ Digest string } }
	if r := run(t, nil, "inspect", ref, "--format", "json"); r.code != 0 || json.Unmarshal([]byte(r.out), &info) != nil || len(info.Layers) != 1 {
		t.Fatalf("inspect: %+v", r)
	}
	line := "Downloading " + strings.TrimPrefix(info.Layers[0].Digest, "sha256:")[:12]

	// Each pull GETs the config, then the layer, which stalls after half
	// its bytes, then the rest of the layer: the 2nd, 5th, ... GETs stall.
	var stalls []testregistry.FaultRule
	for _, nth := range []int{2, 5, 8, 11} {
		stalls = append(stalls, testregistry.FaultRule{Match: testregistry.MatchBlobGET(), Nth: nth, Kind: testregistry.StallMidway})
	}
	stalling := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: stalls}))
	n := 0
	pull := func(extra ...string) []string {
		n++
		return append([]string{"pull", stalling.Host() + "/addons/hello:0.1.0", "-o", filepath.Join(dir, "out"+strconv.Itoa(n)),
			"--insecure-skip-verify", "--no-cache", "--read-timeout", "700ms"}, extra...)
	}

	term, master = openPty(t)
	got, code = runWithStderr(t, term, master, pull()...)
	if code != 0 {
		t.Fatalf("pull under a terminal: exit %d\n%s", code, got)
	}
	if !strings.Contains(got, line) || !strings.Contains(got, "\x1b[") {
		t.Fatalf("no progress line %q drawn on the terminal:\n%q", line, got)
	}
	partial := false
	for _, m := range counts.FindAllStringSubmatch(got, -1) {
		partial = partial || m[1] != m[2]
	}
	if !partial || !strings.Contains(got, "done") {
		t.Errorf("the terminal saw no count short of the layer's size, or not its end:\n%q", got)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, code = runWithStderr(t, w, r, pull()...)
	if code != 0 || strings.Contains(got, "Downloading") || strings.Contains(got, "\x1b") {
		t.Errorf("pull through a pipe: exit %d, stderr drew progress:\n%q", code, got)
	}

	term, master = openPty(t)
	got, code = runWithStderr(t, term, master, pull("--quiet")...)
	if code != 0 || strings.Contains(got, "Downloading") || strings.Contains(got, "\x1b") {
		t.Errorf("pull --quiet under a terminal: exit %d, stderr drew progress:\n%q", code, got)
	}

	// A terminal of no width (as `script` makes without one of its own).
	term, master = openPty(t, 0)
	got, code = runWithStderr(t, term, master, pull()...)
	if code != 0 || strings.Contains(got, "Downloading") || strings.Contains(got, "\x1b") {
		t.Errorf("pull under an unsized terminal: exit %d, stderr drew progress:\n%q", code, got)
	}
}
