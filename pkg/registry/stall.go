package registry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// DefaultReadTimeout is how long a request may go without any progress —
// no byte of the request body taken, no response header, no byte of the
// response body — before it is abandoned as stalled.
const DefaultReadTimeout = 30 * time.Second

// stalledError is the error of a request that made no progress for the
// read timeout. It is a timeout net.Error, so oras-go's retry policy retries
// it where the request is idempotent and sentinelFor maps it to
// ErrUnreachable.
type stalledError struct{ d time.Duration }

func (e stalledError) Error() string {
	return fmt.Sprintf("registry stalled: nothing received for %s (read timeout)", e.d)
}
func (stalledError) Timeout() bool   { return true }
func (stalledError) Temporary() bool { return true }

// idleTimeout is the bottom transport: it abandons a request once it has
// made no progress for d. Only time spent waiting on the registry counts:
// the clock runs while the request is sent and its headers awaited, and
// during each Read of the response body, never while the caller is busy
// with what it read.
type idleTimeout struct {
	next http.RoundTripper
	d    time.Duration
}

func (t idleTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watchdog{d: t.d, cancel: cancel}
	w.arm()
	out := req.Clone(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		out.Body = progressBody{req.Body, w}
	}
	if req.GetBody != nil {
		out.GetBody = func() (io.ReadCloser, error) {
			b, err := req.GetBody()
			if err != nil || b == nil || b == http.NoBody {
				return b, err
			}
			return progressBody{b, w}, nil
		}
	}
	resp, err := t.next.RoundTrip(out)
	w.disarm()
	if err != nil {
		cancel(nil)
		if stalled, ok := context.Cause(ctx).(stalledError); ok {
			return nil, stalled // unwrapped: oras-go's retry policy asserts net.Error
		}
		return nil, err
	}
	resp.Body = &idleBody{ReadCloser: resp.Body, w: w, ctx: ctx, cancel: cancel}
	return resp, nil
}

// watchdog cancels the request when armed for longer than d.
type watchdog struct {
	d      time.Duration
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	timer  *time.Timer
}

// arm starts (or restarts) the clock.
func (w *watchdog) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil {
		w.timer = time.AfterFunc(w.d, func() { w.cancel(stalledError{w.d}) })
		return
	}
	w.timer.Reset(w.d)
}

// disarm stops the clock.
func (w *watchdog) disarm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// progressBody restarts the clock whenever the transport takes bytes of the
// request body: a slow upload is progress, not a stall.
type progressBody struct {
	io.ReadCloser
	w *watchdog
}

func (b progressBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.arm()
	}
	return n, err
}

// idleBody runs the clock during each Read of the response body.
type idleBody struct {
	io.ReadCloser
	w      *watchdog
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.w.arm()
	n, err := b.ReadCloser.Read(p)
	b.w.disarm()
	if err != nil && err != io.EOF {
		if stalled, ok := context.Cause(b.ctx).(stalledError); ok {
			return n, stalled
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.w.disarm()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
