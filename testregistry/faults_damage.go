package testregistry

import (
	"bytes"
	"net"
	"net/http"
	"strings"
)

// bufferWriter captures a response so a fault can damage it.
type bufferWriter struct {
	hdr    http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.hdr }
func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
func (b *bufferWriter) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// serveDamaged serves r normally into a buffer, then sends a damaged copy.
func serveDamaged(h *handler, w http.ResponseWriter, r *http.Request, kind FaultKind) {
	buf := &bufferWriter{hdr: http.Header{}}
	h.route(buf, r)
	for k, v := range buf.hdr {
		w.Header()[k] = v
	}
	if buf.status == 0 {
		buf.status = http.StatusOK
	}
	body := buf.body.Bytes()
	switch kind {
	case WrongBytes:
		for i := range body {
			body[i] ^= 0xff
		}
		w.WriteHeader(buf.status)
		_, _ = w.Write(body)
	case Truncate:
		w.WriteHeader(buf.status)
		_, _ = w.Write(body[:len(body)/2])
		// Returning with fewer bytes than Content-Length makes the server
		// close the connection.
	case StallMidway:
		w.WriteHeader(buf.status)
		_, _ = w.Write(body[:len(body)/2])
		_ = http.NewResponseController(w).Flush()
		// apply then holds the handler; returning short closes the connection.
	case ResetMidway:
		w.WriteHeader(buf.status)
		_, _ = w.Write(body[:len(body)/2])
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		conn, _, err := rc.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler) // HTTP/2: abort the stream instead
		}
		if tcp, ok := conn.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0) // close with RST: "connection reset by peer"
		}
		_ = conn.Close()
	}
}

// redirectBlob answers a blob GET/HEAD with 302 to the redirect host; it
// reports false (not handled) for other requests.
func (h *handler) redirectBlob(w http.ResponseWriter, r *http.Request) bool {
	rt, ok := parseRoute(r.URL.Path)
	if !ok || rt.kind != routeBlob || h.redirectURL == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	if !validName(rt.name) {
		return false
	}
	if _, err := parseDigest(rt.ref); err != nil {
		return false
	}
	if linked, err := h.store.BlobLinked(r.Context(), rt.name, rt.ref); err != nil || !linked {
		return false
	}
	w.Header().Set("Location", h.redirectURL+"/blobs/"+rt.ref)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusFound)
	return true
}

// blobHost is the second host behind RedirectBlob: it serves
// /blobs/<digest> to anyone, like a CDN behind signed URLs.
type blobHost struct {
	h   *handler // for storage and sendBlob
	log *requestLog
}

func (b *blobHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := b.log.start(w, r)
	defer b.log.finish(rec, r)
	dgst, ok := strings.CutPrefix(r.URL.Path, "/blobs/")
	if _, err := parseDigest(dgst); !ok || err != nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		writeError(rec, r, http.StatusNotFound, CodeBlobUnknown, "blob unknown", r.URL.Path)
		return
	}
	b.h.sendBlob(rec, r, dgst)
}
