package testregistry

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// tagList is the body of GET /v2/<name>/tags/list.
type tagList struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

// serveTags handles GET /v2/<name>/tags/list with n/last pagination. Tags are
// sorted lexically; when more remain after n, a Link header points at the
// next page.
func (h *handler) serveTags(w http.ResponseWriter, r *http.Request, rt route) {
	q := r.URL.Query()
	n := -1
	if v := q.Get("n"); v != "" {
		parsed, err := strconv.Atoi(v)
		if err != nil || parsed < 0 {
			writeError(w, r, http.StatusBadRequest, CodeUnsupported, "n must be a non-negative integer", v)
			return
		}
		n = parsed
	}
	tags, err := h.store.ListTags(r.Context(), rt.name)
	if errors.Is(err, ErrNotFound) {
		writeError(w, r, http.StatusNotFound, CodeNameUnknown, "repository name not known to registry", rt.name)
		return
	} else if !h.storeErr(w, r, err) {
		return
	}
	slices.Sort(tags)
	if last := q.Get("last"); last != "" {
		i, _ := slices.BinarySearch(tags, last)
		for i < len(tags) && tags[i] <= last {
			i++
		}
		tags = tags[i:]
	}
	if n >= 0 && n < len(tags) {
		tags = tags[:n]
		if n > 0 {
			next := url.Values{"n": {strconv.Itoa(n)}, "last": {tags[n-1]}}
			w.Header().Set("Link", `</v2/`+rt.name+`/tags/list?`+next.Encode()+`>; rel="next"`)
		}
	}
	body, _ := json.Marshal(tagList{Name: rt.name, Tags: append([]string{}, tags...)})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}
