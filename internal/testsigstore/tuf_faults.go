package testsigstore

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"time"
)

// EndlessCap is where a TUFRepository's endless response gives up if the
// client never hangs up: a client that stops at its bounds has Written far
// below it.
const EndlessCap = 64 << 20

// fault is how a path is served wrong.
type fault struct {
	endless  bool
	gzip     bool          // with endless: gzip-encoded, a decompression bomb
	declared int64         // Content-Length announced (0: none, chunked)
	stall    bool          // half the file, then nothing
	trickle  time.Duration // with stall: one more byte each trickle
}

// ServeEndless serves path as its bytes followed by whitespace without end
// (up to EndlessCap), announcing declared bytes as its Content-Length when
// declared > 0 and none otherwise.
func (r *TUFRepository) ServeEndless(path string, declared int64) {
	r.setFault(path, fault{endless: true, declared: declared})
}

// ServeGzipBomb serves path as ServeEndless does, gzip-encoded
// (Content-Encoding: gzip): a few KiB on the wire that decompress without
// end. Written counts the bytes before compression.
func (r *TUFRepository) ServeGzipBomb(path string) {
	r.setFault(path, fault{endless: true, gzip: true})
}

// ServeStalled serves the first half of path and then nothing until the
// client hangs up or the test ends; with trickle > 0, one more byte every
// trickle, a slow loris that never finishes.
func (r *TUFRepository) ServeStalled(path string, trickle time.Duration) {
	r.setFault(path, fault{stall: true, trickle: trickle})
}

// Written returns how many body bytes were written for path's faulty
// responses, all requests together.
func (r *TUFRepository) Written(path string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written[path]
}

func (r *TUFRepository) setFault(path string, f fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults[path] = f
}

func (r *TUFRepository) serveFault(w http.ResponseWriter, req *http.Request, path string, b []byte, f fault) {
	if f.declared > 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(f.declared, 10))
	}
	var out io.Writer = w
	if f.gzip {
		w.Header().Set("Content-Encoding", "gzip")
		z := gzip.NewWriter(w)
		defer z.Close()
		out = z
	}
	w.WriteHeader(http.StatusOK)
	flush := w.(http.Flusher)
	var sent int64
	write := func(p []byte) bool {
		n, err := out.Write(p)
		if z, ok := out.(*gzip.Writer); ok && err == nil {
			err = z.Flush()
		}
		flush.Flush()
		sent += int64(n)
		r.mu.Lock()
		r.written[path] += int64(n)
		r.mu.Unlock()
		return err == nil
	}
	if f.endless {
		filler := bytes.Repeat([]byte{' '}, 32<<10)
		for ok := write(b); ok && sent < EndlessCap; ok = write(filler) {
		}
		return
	}
	if !write(b[:len(b)/2]) {
		return
	}
	var tick <-chan time.Time
	if f.trickle > 0 {
		t := time.NewTicker(f.trickle)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-req.Context().Done():
			return
		case <-r.done:
			return
		case <-tick:
			if !write([]byte{' '}) {
				return
			}
		}
	}
}
