package testregistry

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// referrersIndex is the response of the referrers API.
type referrersIndex struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []descriptor `json:"manifests"`
}

// serveReferrers handles GET /v2/<name>/referrers/<digest>[?artifactType=].
// It always answers 200 with an image index, empty for unknown repositories
// or subjects. Each descriptor's artifactType is the manifest's artifactType,
// else its config media type; annotations are copied.
func (h *handler) serveReferrers(w http.ResponseWriter, r *http.Request, rt route) {
	if _, err := parseDigest(rt.ref); err != nil {
		writeError(w, r, http.StatusBadRequest, CodeDigestInvalid, err.Error(), rt.ref)
		return
	}
	ctx := r.Context()
	filter := r.URL.Query().Get("artifactType")
	digests, err := h.store.ListManifests(ctx, rt.name)
	if !h.storeErr(w, r, err) {
		return
	}
	slices.Sort(digests)
	out := referrersIndex{SchemaVersion: 2, MediaType: MediaTypeImageIndex, Manifests: []descriptor{}}
	for _, d := range digests {
		mediaType, body, err := h.store.GetManifest(ctx, rt.name, d)
		if err != nil {
			continue // deleted meanwhile
		}
		var doc manifestDoc
		if json.Unmarshal(body, &doc) != nil || doc.Subject == nil || doc.Subject.Digest != rt.ref {
			continue
		}
		artifactType := doc.ArtifactType
		if artifactType == "" && doc.Config != nil {
			artifactType = doc.Config.MediaType
		}
		if filter != "" && artifactType != filter {
			continue
		}
		out.Manifests = append(out.Manifests, descriptor{
			MediaType:    baseMediaType(mediaType),
			Digest:       d,
			Size:         int64(len(body)),
			ArtifactType: artifactType,
			Annotations:  doc.Annotations,
		})
	}
	if filter != "" {
		w.Header().Set("OCI-Filters-Applied", "artifactType")
	}
	resp, _ := json.Marshal(out)
	w.Header().Set("Content-Type", MediaTypeImageIndex)
	w.Header().Set("Content-Length", strconv.Itoa(len(resp)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(resp)
	}
}
