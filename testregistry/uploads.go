package testregistry

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// uploadIDRE matches the session IDs this registry hands out.
var uploadIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

func newUploadID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func uploadLocation(name, id string) string   { return "/v2/" + name + "/blobs/uploads/" + id }
func blobLocation(name, digest string) string { return "/v2/" + name + "/blobs/" + digest }

// startUpload handles POST /v2/<name>/blobs/uploads/: cross-repository
// mount, monolithic upload (?digest=) or a new session.
func (h *handler) startUpload(w http.ResponseWriter, r *http.Request, rt route) {
	q := r.URL.Query()
	if mount := q.Get("mount"); mount != "" {
		if h.mount(w, r, rt.name, mount, q.Get("from")) {
			return
		}
		// Not mountable: fall through to a new upload session (202).
	} else if dgst := q.Get("digest"); dgst != "" {
		if _, err := parseDigest(dgst); err != nil {
			writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, err.Error(), dgst)
			return
		}
		id := newUploadID()
		if !h.storeErr(w, r, h.store.CreateUpload(r.Context(), rt.name, id)) {
			return
		}
		h.finishUpload(w, r, rt.name, id, dgst)
		return
	}
	id := newUploadID()
	if !h.storeErr(w, r, h.store.CreateUpload(r.Context(), rt.name, id)) {
		return
	}
	h.uploadAccepted(w, rt.name, id, 0)
}

// mount links an existing blob into name. from may be empty (anonymous
// mount: any blob this registry stores). It reports whether it answered.
func (h *handler) mount(w http.ResponseWriter, r *http.Request, name, dgst, from string) bool {
	if _, err := parseDigest(dgst); err != nil {
		return false
	}
	ctx := r.Context()
	if from != "" {
		if !validName(from) {
			return false
		}
		if ok, err := h.store.BlobLinked(ctx, from, dgst); err != nil || !ok {
			return false
		}
	}
	if err := h.store.LinkBlob(ctx, name, dgst); err != nil {
		return false
	}
	w.Header().Set("Location", blobLocation(name, dgst))
	w.Header().Set("Docker-Content-Digest", dgst)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusCreated)
	return true
}

// uploadAccepted answers 202 with the session's location and progress.
func (h *handler) uploadAccepted(w http.ResponseWriter, name, id string, size int64) {
	setUploadHeaders(w, name, id, size)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusAccepted)
}

func setUploadHeaders(w http.ResponseWriter, name, id string, size int64) {
	w.Header().Set("Location", uploadLocation(name, id))
	w.Header().Set("Docker-Upload-UUID", id)
	// Range is inclusive; like distribution, an empty session reports 0-0.
	w.Header().Set("Range", fmt.Sprintf("0-%d", max(size-1, 0)))
}

// serveUpload handles GET, PATCH, PUT and DELETE on an upload session.
func (h *handler) serveUpload(w http.ResponseWriter, r *http.Request, rt route) {
	id := rt.ref
	ctx := r.Context()
	if !uploadIDRE.MatchString(id) {
		writeError(w, r, http.StatusNotFound, CodeBlobUploadUnknown, "blob upload unknown to registry", id)
		return
	}
	size, err := h.store.UploadSize(ctx, rt.name, id)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeBlobUploadUnknown, "blob upload unknown to registry", id)
		return
	} else if !h.storeErr(w, r, err) {
		return
	}
	switch r.Method {
	case http.MethodGet:
		setUploadHeaders(w, rt.name, id, size)
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNoContent)
	case http.MethodDelete:
		if !h.storeErr(w, r, h.store.DeleteUpload(ctx, rt.name, id)) {
			return
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPatch:
		if newSize, ok := h.appendChunk(w, r, rt.name, id, size); ok {
			h.uploadAccepted(w, rt.name, id, newSize)
		}
	case http.MethodPut:
		dgst := r.URL.Query().Get("digest")
		if _, err := parseDigest(dgst); err != nil {
			writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, "missing or invalid digest parameter", dgst)
			return
		}
		if _, ok := h.appendChunk(w, r, rt.name, id, size); ok {
			h.finishUpload(w, r, rt.name, id, dgst)
		}
	}
}

// appendChunk appends the request body to a session. With Content-Range the
// chunk must start where the session ends (416 otherwise) and match
// Content-Length; without it the body is streamed. It reports whether it
// succeeded; on failure it has answered.
func (h *handler) appendChunk(w http.ResponseWriter, r *http.Request, name, id string, size int64) (int64, bool) {
	offset := size
	if cr := r.Header.Get("Content-Range"); cr != "" {
		start, end, err := parseContentRange(cr)
		if err != nil {
			writeError(w, r, http.StatusBadRequest, CodeBlobUploadInvalid, err.Error(), cr)
			return 0, false
		}
		if start != size {
			setUploadHeaders(w, name, id, size)
			writeError(w, r, http.StatusRequestedRangeNotSatisfiable, CodeBlobUploadInvalid,
				fmt.Sprintf("chunk starts at %d but %d bytes were received", start, size), cr)
			return 0, false
		}
		if r.ContentLength >= 0 && r.ContentLength != end-start+1 {
			writeError(w, r, http.StatusBadRequest, CodeSizeInvalid,
				fmt.Sprintf("Content-Range covers %d bytes but Content-Length is %d", end-start+1, r.ContentLength), cr)
			return 0, false
		}
		offset = start
	} else if r.ContentLength == 0 {
		return size, true
	}
	newSize, err := h.store.AppendUpload(r.Context(), name, id, offset, r.Body)
	if errors.Is(err, ErrRangeMismatch) {
		setUploadHeaders(w, name, id, newSize)
		writeError(w, r, http.StatusRequestedRangeNotSatisfiable, CodeBlobUploadInvalid, err.Error(), nil)
		return 0, false
	}
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeBlobUploadUnknown, "blob upload unknown to registry", id)
		return 0, false
	}
	if err != nil {
		writeError(w, r, http.StatusBadRequest, CodeBlobUploadInvalid, err.Error(), nil)
		return 0, false
	}
	return newSize, true
}

// parseContentRange parses the upload Content-Range "start-end" (inclusive;
// "bytes " or "bytes=" prefixes tolerated).
func parseContentRange(v string) (int64, int64, error) {
	v = strings.TrimSpace(v)
	v = strings.TrimPrefix(strings.TrimPrefix(v, "bytes "), "bytes=")
	a, b, ok := strings.Cut(v, "-")
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, 0, fmt.Errorf("invalid Content-Range %q", v)
	}
	return start, end, nil
}

// finishUpload commits a session (whose body has been appended) as dgst.
func (h *handler) finishUpload(w http.ResponseWriter, r *http.Request, name, id, dgst string) {
	if r.Method == http.MethodPost {
		if _, ok := h.appendChunk(w, r, name, id, 0); !ok {
			_ = h.store.DeleteUpload(r.Context(), name, id)
			return
		}
	}
	_, err := h.store.CommitUpload(r.Context(), name, id, dgst)
	switch {
	case errors.Is(err, ErrDigestMismatch):
		writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, err.Error(), dgst)
		return
	case errors.Is(err, ErrNotFound):
		writeError(w, r, http.StatusNotFound, CodeBlobUploadUnknown, "blob upload unknown to registry", id)
		return
	case !h.storeErr(w, r, err):
		return
	}
	w.Header().Set("Location", blobLocation(name, dgst))
	w.Header().Set("Docker-Content-Digest", dgst)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusCreated)
}

// storeErr answers 500 for an unexpected storage error and reports whether
// err was nil.
func (h *handler) storeErr(w http.ResponseWriter, r *http.Request, err error) bool {
	if err == nil {
		return true
	}
	writeError(w, r, http.StatusInternalServerError, CodeUnsupported, err.Error(), nil)
	return false
}
