package testregistry

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// serveManifest handles GET, HEAD, PUT and DELETE /v2/<name>/manifests/<ref>.
func (h *handler) serveManifest(w http.ResponseWriter, r *http.Request, rt route) {
	isDigest := strings.Contains(rt.ref, ":")
	if isDigest {
		if _, err := parseDigest(rt.ref); err != nil {
			writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, err.Error(), rt.ref)
			return
		}
	} else if !validTag(rt.ref) {
		writeError(w, r, http.StatusBadRequest, CodeManifestInvalid, "invalid tag", rt.ref)
		return
	}
	switch r.Method {
	case http.MethodPut:
		h.putManifest(w, r, rt, isDigest)
	case http.MethodDelete:
		h.deleteManifest(w, r, rt, isDigest)
	default:
		h.getManifest(w, r, rt, isDigest)
	}
}

// resolve turns a reference into a digest; ok is false when it has answered.
func (h *handler) resolve(w http.ResponseWriter, r *http.Request, rt route, isDigest bool) (string, bool) {
	if isDigest {
		return rt.ref, true
	}
	dgst, err := h.store.GetTag(r.Context(), rt.name, rt.ref)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeManifestUnknown, "manifest unknown to registry", rt.ref)
		return "", false
	}
	return dgst, h.storeErr(w, r, err)
}

func (h *handler) getManifest(w http.ResponseWriter, r *http.Request, rt route, isDigest bool) {
	dgst, ok := h.resolve(w, r, rt, isDigest)
	if !ok {
		return
	}
	mediaType, body, err := h.store.GetManifest(r.Context(), rt.name, dgst)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeManifestUnknown, "manifest unknown to registry", rt.ref)
		return
	} else if !h.storeErr(w, r, err) {
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", mediaType)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("Docker-Content-Digest", dgst)
	hdr.Set("ETag", `"`+dgst+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}

func (h *handler) putManifest(w http.ResponseWriter, r *http.Request, rt route, isDigest bool) {
	ctx := r.Context()
	limit := h.opts.maxManifestSize
	if r.ContentLength > limit {
		writeError(w, r, http.StatusRequestEntityTooLarge, CodeSizeInvalid,
			fmt.Sprintf("manifest of %d bytes exceeds the %d byte limit", r.ContentLength, limit), nil)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, CodeManifestInvalid, "reading manifest: "+err.Error(), nil)
		return
	}
	if int64(len(body)) > limit {
		writeError(w, r, http.StatusRequestEntityTooLarge, CodeSizeInvalid,
			fmt.Sprintf("manifest exceeds the %d byte limit", limit), nil)
		return
	}
	tags := r.URL.Query()["tag"]
	for _, t := range tags {
		if !validTag(t) {
			writeError(w, r, http.StatusBadRequest, CodeManifestInvalid, "invalid tag parameter", t)
			return
		}
	}
	if !isDigest {
		tags = append([]string{rt.ref}, tags...)
	}
	algorithm := "sha256"
	if isDigest {
		algorithm, _, _ = strings.Cut(rt.ref, ":")
	}
	dgst, _ := digestOf(algorithm, body)
	if isDigest && dgst != rt.ref {
		writeError(w, r, http.StatusBadRequest, CodeDigestInvalid,
			fmt.Sprintf("manifest digest is %s, not the %s in the URL", dgst, rt.ref), rt.ref)
		return
	}
	doc, mediaType, apiErr := parseManifest(r.Header.Get("Content-Type"), body)
	if apiErr == nil {
		apiErr = h.validateManifest(ctx, rt.name, mediaType, doc)
	}
	if apiErr != nil {
		writeError(w, r, apiErr.status, apiErr.code, apiErr.message, apiErr.detail)
		return
	}
	if !h.storeErr(w, r, h.store.PutManifest(ctx, rt.name, dgst, mediaType, body)) {
		return
	}
	for _, t := range tags {
		if !h.storeErr(w, r, h.store.SetTag(ctx, rt.name, t, dgst)) {
			return
		}
	}
	hdr := w.Header()
	hdr.Set("Location", "/v2/"+rt.name+"/manifests/"+dgst)
	hdr.Set("Docker-Content-Digest", dgst)
	if doc.Subject != nil {
		hdr.Set("OCI-Subject", doc.Subject.Digest)
	}
	if isDigest {
		for _, t := range tags {
			hdr.Add("OCI-Tag", t)
		}
	}
	hdr.Set("Content-Length", "0")
	w.WriteHeader(http.StatusCreated)
}

func (h *handler) deleteManifest(w http.ResponseWriter, r *http.Request, rt route, isDigest bool) {
	ctx := r.Context()
	if !isDigest {
		err := h.store.DeleteTag(ctx, rt.name, rt.ref)
		if errors.Is(err, ErrNotFound) {
			writeError(w, r, http.StatusNotFound, CodeManifestUnknown, "manifest unknown to registry", rt.ref)
			return
		} else if !h.storeErr(w, r, err) {
			return
		}
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	err := h.store.DeleteManifest(ctx, rt.name, rt.ref)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeManifestUnknown, "manifest unknown to registry", rt.ref)
		return
	} else if !h.storeErr(w, r, err) {
		return
	}
	// Tags pointing at a deleted manifest go with it.
	tags, _ := h.store.ListTags(ctx, rt.name)
	for _, t := range tags {
		if d, err := h.store.GetTag(ctx, rt.name, t); err == nil && d == rt.ref {
			_ = h.store.DeleteTag(ctx, rt.name, t)
		}
	}
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusAccepted)
}
