package testregistry

import (
	"net/http"
	"slices"
	"strings"
)

// handler is the registry's http.Handler: request log, auth, faults, routing.
type handler struct {
	opts   *options
	store  Storage
	log    *requestLog
	faults *faultState
	// redirectURL is the base URL of the blob redirect host, if any.
	redirectURL string
}

// NewHandler returns the registry as an http.Handler over s, for embedding in
// a server of your own. WithStorage and WithTLS are ignored here; faults that
// need a second host (RedirectBlob) are only available through New.
func NewHandler(s Storage, opts ...Option) http.Handler {
	o := buildOptions(opts)
	o.storage = s
	return newHandler(o)
}

func newHandler(o *options) *handler {
	h := &handler{opts: o, store: o.storage, log: &requestLog{w: o.accessLog}}
	if o.faults != nil {
		h.faults = newFaultState(*o.faults)
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := h.log.start(w, r)
	defer h.log.finish(rec, r)
	h.serve(rec, r)
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v2" && !strings.HasPrefix(r.URL.Path, "/v2/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
	if !h.authorized(w, r) {
		return
	}
	if h.faults != nil && h.faults.apply(h, w, r) {
		return
	}
	h.route(w, r)
}

// routeKind identifies an endpoint of the distribution API.
type routeKind int

const (
	routeBase routeKind = iota + 1
	routeBlob
	routeUploadStart
	routeUpload
	routeManifest
	routeTags
	routeReferrers
)

type route struct {
	kind routeKind
	name string // repository
	ref  string // digest, tag or upload ID
}

// parseRoute maps a /v2/ path to an endpoint. Repository names contain
// slashes, so it looks for the right-most segment that, together with what
// follows it, forms an endpoint suffix.
func parseRoute(path string) (route, bool) {
	if path == "/v2" || path == "/v2/" {
		return route{kind: routeBase}, true
	}
	segs := strings.Split(strings.TrimPrefix(path, "/v2/"), "/")
	for i := len(segs) - 1; i >= 1; i-- {
		name, tail := strings.Join(segs[:i], "/"), segs[i:]
		switch {
		case tail[0] == "blobs" && len(tail) == 2 && tail[1] == "uploads":
			return route{kind: routeUploadStart, name: name}, true
		case tail[0] == "blobs" && len(tail) == 2 && tail[1] != "":
			return route{kind: routeBlob, name: name, ref: tail[1]}, true
		case tail[0] == "blobs" && len(tail) == 3 && tail[1] == "uploads" && tail[2] == "":
			return route{kind: routeUploadStart, name: name}, true
		case tail[0] == "blobs" && len(tail) == 3 && tail[1] == "uploads":
			return route{kind: routeUpload, name: name, ref: tail[2]}, true
		case tail[0] == "manifests" && len(tail) == 2 && tail[1] != "":
			return route{kind: routeManifest, name: name, ref: tail[1]}, true
		case tail[0] == "tags" && len(tail) == 2 && tail[1] == "list":
			return route{kind: routeTags, name: name}, true
		case tail[0] == "referrers" && len(tail) == 2 && tail[1] != "":
			return route{kind: routeReferrers, name: name, ref: tail[1]}, true
		}
	}
	return route{}, false
}

// allowedMethods lists the methods an endpoint accepts.
func allowedMethods(k routeKind) []string {
	switch k {
	case routeBlob:
		return []string{http.MethodGet, http.MethodHead, http.MethodDelete}
	case routeUploadStart:
		return []string{http.MethodPost}
	case routeUpload:
		return []string{http.MethodGet, http.MethodPatch, http.MethodPut, http.MethodDelete}
	case routeManifest:
		return []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete}
	default: // base, tags, referrers
		return []string{http.MethodGet, http.MethodHead}
	}
}

func (h *handler) route(w http.ResponseWriter, r *http.Request) {
	rt, ok := parseRoute(r.URL.Path)
	if !ok {
		writeError(w, r, http.StatusNotFound, CodeUnsupported, "unknown endpoint", r.URL.Path)
		return
	}
	allowed := allowedMethods(rt.kind)
	if !slices.Contains(allowed, r.Method) {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, r, http.StatusMethodNotAllowed, CodeUnsupported, "method not allowed", r.Method)
		return
	}
	if h.opts.noDelete && r.Method == http.MethodDelete && (rt.kind == routeManifest || rt.kind == routeBlob) {
		writeError(w, r, http.StatusMethodNotAllowed, CodeUnsupported, "the operation is unsupported", "deletes are disabled")
		return
	}
	if rt.kind == routeBase {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "2")
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte("{}"))
		}
		return
	}
	if !validName(rt.name) {
		writeError(w, r, http.StatusBadRequest, CodeNameInvalid, "invalid repository name", rt.name)
		return
	}
	switch rt.kind {
	case routeBlob:
		h.serveBlob(w, r, rt)
	case routeUploadStart:
		h.startUpload(w, r, rt)
	case routeUpload:
		h.serveUpload(w, r, rt)
	case routeManifest:
		h.serveManifest(w, r, rt)
	case routeTags:
		h.serveTags(w, r, rt)
	case routeReferrers:
		h.serveReferrers(w, r, rt)
	}
}
