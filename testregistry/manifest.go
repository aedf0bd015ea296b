package testregistry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// Manifest media types the registry understands.
const (
	MediaTypeImageManifest  = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeImageIndex     = "application/vnd.oci.image.index.v1+json"
	MediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	MediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// descriptor is an OCI content descriptor.
type descriptor struct {
	MediaType    string            `json:"mediaType"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	URLs         []string          `json:"urls,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Data         []byte            `json:"data,omitempty"`
}

// manifestDoc is the union of the image manifest and index fields we check.
type manifestDoc struct {
	SchemaVersion *int              `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	ArtifactType  string            `json:"artifactType"`
	Config        *descriptor       `json:"config"`
	Layers        []descriptor      `json:"layers"`
	Manifests     []descriptor      `json:"manifests"`
	Subject       *descriptor       `json:"subject"`
	Annotations   map[string]string `json:"annotations"`
}

// apiError is an error that maps to an OCI error response.
type apiError struct {
	status  int
	code    string
	message string
	detail  any
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func invalidManifest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, CodeManifestInvalid, fmt.Sprintf(format, args...), nil}
}

// baseMediaType strips parameters from a Content-Type value.
func baseMediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.TrimSpace(strings.ToLower(ct))
}

// parseManifest decodes body and settles its media type: the Content-Type
// header, else the body's mediaType; when both are present they must agree.
func parseManifest(contentType string, body []byte) (manifestDoc, string, *apiError) {
	var doc manifestDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return doc, "", invalidManifest("manifest is not a valid JSON object: %v", err)
	}
	mediaType := contentType
	switch {
	case contentType == "" && doc.MediaType == "":
		return doc, "", invalidManifest("manifest has neither a Content-Type nor a mediaType field")
	case contentType == "":
		mediaType = doc.MediaType
	case doc.MediaType != "" && baseMediaType(contentType) != doc.MediaType:
		return doc, "", invalidManifest("Content-Type %q does not match the manifest mediaType %q", contentType, doc.MediaType)
	}
	return doc, mediaType, nil
}

// validateManifest checks a manifest's structure and that what it references
// exists in repo: blobs for image manifests, manifests for indexes.
func (h *handler) validateManifest(ctx context.Context, repo, mediaType string, doc manifestDoc) *apiError {
	if doc.Subject != nil {
		if err := checkDescriptor(*doc.Subject, "subject"); err != nil {
			return err
		}
	}
	switch baseMediaType(mediaType) {
	case MediaTypeImageManifest, MediaTypeDockerManifest:
		if doc.SchemaVersion == nil || *doc.SchemaVersion != 2 {
			return invalidManifest("schemaVersion must be 2")
		}
		if doc.Config == nil {
			return invalidManifest("image manifest has no config")
		}
		if doc.Manifests != nil {
			return invalidManifest("image manifest must not have a manifests field")
		}
		refs := append([]descriptor{*doc.Config}, doc.Layers...)
		for i, d := range refs {
			if err := checkDescriptor(d, fmt.Sprintf("descriptor %d", i)); err != nil {
				return err
			}
			if nonDistributable(d.MediaType) || h.opts.allowSparse {
				continue
			}
			if err := h.checkBlob(ctx, repo, d); err != nil {
				return err
			}
		}
	case MediaTypeImageIndex, MediaTypeDockerList:
		if doc.SchemaVersion == nil || *doc.SchemaVersion != 2 {
			return invalidManifest("schemaVersion must be 2")
		}
		if doc.Config != nil || doc.Layers != nil {
			return invalidManifest("index must not have config or layers")
		}
		for i, d := range doc.Manifests {
			if err := checkDescriptor(d, fmt.Sprintf("manifests[%d]", i)); err != nil {
				return err
			}
			if h.opts.allowSparse {
				continue
			}
			if err := h.checkChildManifest(ctx, repo, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDescriptor validates a descriptor's own fields.
func checkDescriptor(d descriptor, what string) *apiError {
	if d.MediaType == "" {
		return invalidManifest("%s has no mediaType", what)
	}
	alg, err := parseDigest(d.Digest)
	if err != nil {
		return invalidManifest("%s: %v", what, err)
	}
	if d.Size < 0 {
		return invalidManifest("%s has a negative size", what)
	}
	if d.Data != nil {
		got, _ := digestOf(alg, d.Data)
		if got != d.Digest || int64(len(d.Data)) != d.Size {
			return invalidManifest("%s: data field does not match digest and size", what)
		}
	}
	return nil
}

// nonDistributable reports layer types that are never pushed to registries.
func nonDistributable(mediaType string) bool {
	return strings.Contains(mediaType, ".nondistributable.") ||
		strings.HasPrefix(mediaType, "application/vnd.docker.image.rootfs.foreign.")
}

func (h *handler) checkBlob(ctx context.Context, repo string, d descriptor) *apiError {
	ok, err := h.store.BlobLinked(ctx, repo, d.Digest)
	if err != nil {
		return &apiError{http.StatusInternalServerError, CodeUnsupported, err.Error(), nil}
	}
	if !ok {
		return &apiError{http.StatusBadRequest, CodeManifestBlobUnknown, "manifest references a blob unknown to the repository", d.Digest}
	}
	rc, size, err := h.store.OpenBlob(ctx, d.Digest)
	if err != nil {
		return &apiError{http.StatusBadRequest, CodeManifestBlobUnknown, "manifest references a blob unknown to the repository", d.Digest}
	}
	rc.Close()
	if size != d.Size {
		return invalidManifest("descriptor %s has size %d but the blob has %d bytes", d.Digest, d.Size, size)
	}
	return nil
}

func (h *handler) checkChildManifest(ctx context.Context, repo string, d descriptor) *apiError {
	_, body, err := h.store.GetManifest(ctx, repo, d.Digest)
	if errors.Is(err, ErrNotFound) {
		return &apiError{http.StatusBadRequest, CodeManifestBlobUnknown, "index references a manifest unknown to the repository", d.Digest}
	} else if err != nil {
		return &apiError{http.StatusInternalServerError, CodeUnsupported, err.Error(), nil}
	}
	if int64(len(body)) != d.Size {
		return invalidManifest("descriptor %s has size %d but the manifest has %d bytes", d.Digest, d.Size, len(body))
	}
	return nil
}
