package testregistry

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// serveBlob handles GET, HEAD and DELETE /v2/<name>/blobs/<digest>.
func (h *handler) serveBlob(w http.ResponseWriter, r *http.Request, rt route) {
	if _, err := parseDigest(rt.ref); err != nil {
		writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, err.Error(), rt.ref)
		return
	}
	ctx := r.Context()
	linked, err := h.store.BlobLinked(ctx, rt.name, rt.ref)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, CodeUnsupported, err.Error(), nil)
		return
	}
	if !linked {
		writeError(w, r, http.StatusNotFound, CodeBlobUnknown, "blob unknown to registry", rt.ref)
		return
	}
	if r.Method == http.MethodDelete {
		if err := h.store.UnlinkBlob(ctx, rt.name, rt.ref); err != nil {
			if errors.Is(err, ErrNotFound) {
				writeError(w, r, http.StatusNotFound, CodeBlobUnknown, "blob unknown to registry", rt.ref)
				return
			}
			writeError(w, r, http.StatusInternalServerError, CodeUnsupported, err.Error(), nil)
			return
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.sendBlob(w, r, rt.ref)
}

// sendBlob writes blob content for GET/HEAD, honouring a single byte range.
// It does not check repository membership.
func (h *handler) sendBlob(w http.ResponseWriter, r *http.Request, digest string) {
	content, size, err := h.store.OpenBlob(r.Context(), digest)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeBlobUnknown, "blob unknown to registry", digest)
		return
	} else if err != nil {
		writeError(w, r, http.StatusInternalServerError, CodeUnsupported, err.Error(), nil)
		return
	}
	defer content.Close()
	hdr := w.Header()
	hdr.Set("Docker-Content-Digest", digest)
	hdr.Set("Accept-Ranges", "bytes")
	hdr.Set("ETag", `"`+digest+`"`)
	hdr.Set("Cache-Control", "max-age=31536000")

	start, length, status := int64(0), size, http.StatusOK
	if spec := r.Header.Get("Range"); spec != "" && ifRangeMatches(r, digest) {
		br, ok, satisfiable := parseRange(spec, size)
		switch {
		case !satisfiable:
			hdr.Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
			writeError(w, r, http.StatusRequestedRangeNotSatisfiable, CodeSizeInvalid, "requested range not satisfiable", spec)
			return
		case ok:
			start, length, status = br.start, br.length, http.StatusPartialContent
			hdr.Set("Content-Range", br.contentRange(size))
		}
	}
	hdr.Set("Content-Type", "application/octet-stream")
	hdr.Set("Content-Length", strconv.FormatInt(length, 10))
	w.WriteHeader(status)
	if r.Method == http.MethodHead || length == 0 {
		return
	}
	if _, err := content.Seek(start, io.SeekStart); err != nil {
		return
	}
	_, _ = io.CopyN(w, content, length)
}

// ifRangeMatches implements If-Range for our strong ETag (the digest).
func ifRangeMatches(r *http.Request, digest string) bool {
	v := r.Header.Get("If-Range")
	return v == "" || v == `"`+digest+`"`
}
