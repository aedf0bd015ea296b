package testregistry

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// Request is one entry of the request log.
type Request struct {
	Method string
	Path   string // URL path, without the query
	Query  string // raw query, without "?"
	Status int
	Bytes  int64  // response body bytes written
	Range  string // the request's Range header
	// Authorization is the request's Authorization header, so tests can
	// prove which credentials reached which host.
	Authorization string
}

// requestLog records every request; it is shared by the handler and Registry.
type requestLog struct {
	mu      sync.Mutex
	entries []Request
	w       io.Writer // optional access log
}

// recorder wraps a ResponseWriter to capture status and body size.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	start  time.Time
}

func (l *requestLog) start(w http.ResponseWriter, _ *http.Request) *recorder {
	return &recorder{ResponseWriter: w, start: time.Now()}
}

func (l *requestLog) finish(rec *recorder, r *http.Request) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	entry := Request{
		Method:        r.Method,
		Path:          r.URL.Path,
		Query:         r.URL.RawQuery,
		Status:        status,
		Bytes:         rec.bytes,
		Range:         r.Header.Get("Range"),
		Authorization: r.Header.Get("Authorization"),
	}
	l.mu.Lock()
	l.entries = append(l.entries, entry)
	if l.w != nil {
		fmt.Fprintf(l.w, "%s %s %s %d %d %s\n", r.RemoteAddr, r.Method, r.URL.RequestURI(), status, rec.bytes, time.Since(rec.start).Round(time.Microsecond))
	}
	l.mu.Unlock()
}

func (l *requestLog) snapshot() []Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

func (rec *recorder) WriteHeader(status int) {
	if rec.status == 0 {
		rec.status = status
	}
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher.
func (rec *recorder) Flush() {
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack implements http.Hijacker for the ResetMidway fault.
func (rec *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := rec.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("response writer %T cannot hijack: %w", rec.ResponseWriter, http.ErrNotSupported)
	}
	return hj.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }
