//go:build unix

package archive

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// TestExtractWriterShapes extracts trees that exercise the writer: more
// directories than it keeps open, deep nesting, files of zero bytes, on
// either side of the own-buffer threshold, of exactly one chunk and of
// several chunks, each under a permissive and a restrictive umask (modes
// are normalised either way).
func TestExtractWriterShapes(t *testing.T) {
	big := noise(3*chunkSize + 113) // three chunks and a bit, incompressible
	var wide, deep []entry
	want := map[string]map[string]tfile{"wide": {}, "deep": {}, "sizes": {}}
	for i := range maxDirFDs + 36 {
		name := fmt.Sprintf("d%03d/f.yaml", i)
		wide = append(wide, reg(name, name))
		want["wide"][name] = tfile{content: name}
	}
	p := ""
	for i := range 30 {
		p += fmt.Sprintf("l%d/", i)
		deep = append(deep, reg(p+"x", p))
		want["deep"][p+"x"] = tfile{content: p}
	}
	exe := reg("bin/run", "#!/bin/sh\n")
	exe.hdr.Mode = 0o755
	sizes := []entry{reg("empty", ""), reg("under-small", big[:smallFile-1]), reg("small", big[:smallFile]),
		reg("one-chunk", big[:chunkSize]), reg("big", big), exe}
	want["sizes"] = map[string]tfile{"empty": {}, "under-small": {content: big[:smallFile-1]}, "small": {content: big[:smallFile]},
		"one-chunk": {content: big[:chunkSize]}, "big": {content: big}, "bin/run": {content: "#!/bin/sh\n", exec: true}}
	trees := map[string][]entry{"wide": wide, "deep": deep, "sizes": sizes}
	for _, mask := range []int{0o022, 0o077} {
		for name, entries := range trees {
			t.Run(fmt.Sprintf("%s/umask-%03o", name, mask), func(t *testing.T) {
				old := syscall.Umask(mask)
				defer syscall.Umask(old)
				fds := openFDs()
				dir, st, err := extractSandbox(t, gz(t, rawTar(t, entries)), DefaultLimits())
				if err != nil {
					t.Fatal(err)
				}
				if st.Files != len(want[name]) {
					t.Errorf("Stats.Files = %d, want %d", st.Files, len(want[name]))
				}
				got := readTree(t, dir) // checks modes 0644/0755
				for k, v := range want[name] {
					if got[k] != v {
						t.Errorf("%s: got %d bytes (exec %v), want %d (exec %v)", k, len(got[k].content), got[k].exec, len(v.content), v.exec)
					}
				}
				if len(got) != len(want[name]) {
					t.Errorf("got %d files, want %d", len(got), len(want[name]))
				}
				if fds >= 0 && openFDs() != fds {
					t.Errorf("open descriptors: %d before Extract, %d after", fds, openFDs())
				}
			})
		}
	}
}

// noise returns n bytes that gzip cannot shrink much (an LCG, fixed seed).
func noise(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return string(b)
}

// openFDs counts this process's open descriptors (-1 where /proc is absent).
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// TestWriterStopsOnError: the writer's first error stops it; the reader's
// next send or buffer request reports errWriterStopped, and finish returns
// the writer's error naming the path.
func TestWriterStopsOnError(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	w := newWriter(root)
	for _, o := range []op{{kind: opCreate, name: "a", mode: 0o644}, {kind: opClose}, {kind: opCreate, name: "a", mode: 0o644}} {
		if err := w.send(o); err != nil {
			t.Fatalf("send before the failure: %v", err)
		}
	}
	<-w.stopped
	if err := w.send(op{kind: opMkdir, name: "d"}); !errors.Is(err, errWriterStopped) {
		t.Errorf("send after the failure: %v, want errWriterStopped", err)
	}
	for range chunks + 1 {
		if _, err := w.chunk(); err != nil {
			if !errors.Is(err, errWriterStopped) {
				t.Errorf("buffer after the failure: %v", err)
			}
			break
		}
	}
	err = w.finish()
	var pe *PathError
	if !errors.As(err, &pe) || pe.Path != "a" || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("finish = %v, want a *PathError for a wrapping fs.ErrExist", err)
	}
	if _, err := root.Stat("d"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an op queued after the failure was applied: %v", err)
	}
}
