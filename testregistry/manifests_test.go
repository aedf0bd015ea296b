package testregistry

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestManifestPushPullDelete(t *testing.T) {
	reg := New(t)
	c := reg.Client()
	repo := "org/addons/podinfo"
	m := imageManifest(t, reg, repo, nil, "layer one", "layer two")
	d := sha256Digest(m)

	resp, body := do(t, c, "PUT", reg.URL()+"/v2/"+repo+"/manifests/v1.0.0", m, "Content-Type", MediaTypeImageManifest)
	expect(t, resp, body, http.StatusCreated, "")
	if resp.Header.Get("Docker-Content-Digest") != d || resp.Header.Get("Location") != "/v2/"+repo+"/manifests/"+d {
		t.Fatalf("PUT headers %v", resp.Header)
	}
	for _, ref := range []string{"v1.0.0", d} {
		for _, method := range []string{"GET", "HEAD"} {
			resp, body := do(t, c, method, reg.URL()+"/v2/"+repo+"/manifests/"+ref, nil, "Accept", MediaTypeImageManifest)
			expect(t, resp, body, http.StatusOK, "")
			if resp.Header.Get("Content-Type") != MediaTypeImageManifest || resp.Header.Get("Docker-Content-Digest") != d {
				t.Fatalf("%s %s headers %v", method, ref, resp.Header)
			}
			if method == "GET" && !bytes.Equal(body, m) {
				t.Fatalf("GET %s body differs", ref)
			}
			if resp.ContentLength != int64(len(m)) {
				t.Fatalf("%s %s Content-Length %d", method, ref, resp.ContentLength)
			}
		}
	}
	// Delete by tag untags only.
	resp, body = do(t, c, "DELETE", reg.URL()+"/v2/"+repo+"/manifests/v1.0.0", nil)
	expect(t, resp, body, http.StatusAccepted, "")
	resp, body = do(t, c, "GET", reg.URL()+"/v2/"+repo+"/manifests/v1.0.0", nil)
	expect(t, resp, body, http.StatusNotFound, CodeManifestUnknown)
	resp, body = do(t, c, "GET", reg.URL()+"/v2/"+repo+"/manifests/"+d, nil)
	expect(t, resp, body, http.StatusOK, "")
	// Delete by digest removes the manifest and its tags.
	pushManifest(t, reg, repo, "latest", MediaTypeImageManifest, m)
	resp, body = do(t, c, "DELETE", reg.URL()+"/v2/"+repo+"/manifests/"+d, nil)
	expect(t, resp, body, http.StatusAccepted, "")
	for _, ref := range []string{d, "latest"} {
		resp, body = do(t, c, "GET", reg.URL()+"/v2/"+repo+"/manifests/"+ref, nil)
		expect(t, resp, body, http.StatusNotFound, CodeManifestUnknown)
	}
	resp, body = do(t, c, "DELETE", reg.URL()+"/v2/"+repo+"/manifests/"+d, nil)
	expect(t, resp, body, http.StatusNotFound, CodeManifestUnknown)
}

// TestWithoutDeletes: every manifest and blob DELETE is refused as
// distribution refuses it without storage.delete.enabled; nothing goes.
func TestWithoutDeletes(t *testing.T) {
	reg := New(t, WithoutDeletes())
	c := reg.Client()
	repo := "r"
	m := imageManifest(t, reg, repo, nil, "layer")
	d := sha256Digest(m)
	pushManifest(t, reg, repo, "v1", MediaTypeImageManifest, m)
	var layer struct {
		Layers []struct{ Digest string } `json:"layers"`
	}
	if err := json.Unmarshal(m, &layer); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"manifests/v1", "manifests/" + d, "blobs/" + layer.Layers[0].Digest} {
		resp, body := do(t, c, "DELETE", reg.URL()+"/v2/"+repo+"/"+path, nil)
		expect(t, resp, body, http.StatusMethodNotAllowed, CodeUnsupported)
	}
	for _, ref := range []string{"v1", d} {
		resp, body := do(t, c, "GET", reg.URL()+"/v2/"+repo+"/manifests/"+ref, nil)
		expect(t, resp, body, http.StatusOK, "")
	}
}

func TestManifestValidation(t *testing.T) {
	reg := New(t, WithMaxManifestSize(2048))
	c := reg.Client()
	repo := "r"
	good := imageManifest(t, reg, repo, nil, "a layer")
	var goodDoc map[string]any
	_ = json.Unmarshal(good, &goodDoc)
	goodDoc["layers"].([]any)[0].(map[string]any)["digest"] = sha256Digest([]byte("never pushed"))
	unknownLayer := mustJSON(t, goodDoc)
	goodDoc["layers"].([]any)[0].(map[string]any)["digest"] = sha256Digest([]byte("a layer"))
	goodDoc["layers"].([]any)[0].(map[string]any)["size"] = 99
	wrongSize := mustJSON(t, goodDoc)
	index := mustJSON(t, map[string]any{"schemaVersion": 2, "mediaType": MediaTypeImageIndex,
		"manifests": []any{map[string]any{"mediaType": MediaTypeImageManifest, "digest": sha256Digest([]byte("nope")), "size": 4}}})

	tests := []struct {
		name        string
		ref         string
		contentType string
		body        []byte
		status      int
		code        string
	}{
		{"good by tag", "v1", MediaTypeImageManifest, good, 201, ""},
		{"media type from body", "v2", "", good, 201, ""},
		{"digest mismatch", sha256Digest([]byte("x")), MediaTypeImageManifest, good, 400, CodeDigestInvalid},
		{"malformed digest", "sha256:baddigeststring", MediaTypeImageManifest, good, 400, CodeDigestInvalid},
		{"invalid tag", "-bad", MediaTypeImageManifest, good, 400, CodeManifestInvalid},
		{"not JSON", "v3", MediaTypeImageManifest, []byte("{nope"), 400, CodeManifestInvalid},
		{"content type mismatch", "v3", MediaTypeImageIndex, good, 400, CodeManifestInvalid},
		{"unknown layer", "v3", MediaTypeImageManifest, unknownLayer, 400, CodeManifestBlobUnknown},
		{"wrong layer size", "v3", MediaTypeImageManifest, wrongSize, 400, CodeManifestInvalid},
		{"index child unknown", "v3", MediaTypeImageIndex, index, 400, CodeManifestBlobUnknown},
		{"too large", "v3", MediaTypeImageManifest, append(bytes.Repeat([]byte(" "), 2048), good...), 413, CodeSizeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.contentType != "" {
				hdr = []string{"Content-Type", tt.contentType}
			}
			resp, body := do(t, c, "PUT", reg.URL()+"/v2/"+repo+"/manifests/"+tt.ref, tt.body, hdr...)
			expect(t, resp, body, tt.status, tt.code)
		})
	}
	resp, body := do(t, c, "GET", reg.URL()+"/v2/"+repo+"/manifests/v2", nil)
	expect(t, resp, body, http.StatusOK, "")
	if resp.Header.Get("Content-Type") != MediaTypeImageManifest {
		t.Fatalf("Content-Type fell back to %q", resp.Header.Get("Content-Type"))
	}
}

func TestManifestDigestRefAndTagParams(t *testing.T) {
	reg := New(t)
	m := imageManifest(t, reg, "r", nil, "l")
	d := sha512Digest(m)
	resp, body := do(t, reg.Client(), "PUT", reg.URL()+"/v2/r/manifests/"+d+"?tag=a&tag=b", m, "Content-Type", MediaTypeImageManifest)
	expect(t, resp, body, http.StatusCreated, "")
	if resp.Header.Get("Docker-Content-Digest") != d {
		t.Fatalf("digest %q, want sha512 %q", resp.Header.Get("Docker-Content-Digest"), d)
	}
	if got := resp.Header.Values("OCI-Tag"); strings.Join(got, ",") != "a,b" {
		t.Fatalf("OCI-Tag %v", got)
	}
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/r/manifests/b", nil)
	expect(t, resp, body, http.StatusOK, "")
	if resp.Header.Get("Docker-Content-Digest") != d {
		t.Fatalf("tag b resolves to %q", resp.Header.Get("Docker-Content-Digest"))
	}
}

func TestTagsList(t *testing.T) {
	reg := New(t)
	m := imageManifest(t, reg, "r", nil)
	for _, tag := range []string{"c", "a", "e", "b", "d"} {
		pushManifest(t, reg, "r", tag, MediaTypeImageManifest, m)
	}
	tests := []struct {
		query string
		tags  []string
		link  string
	}{
		{"", []string{"a", "b", "c", "d", "e"}, ""},
		{"?n=2", []string{"a", "b"}, `</v2/r/tags/list?last=b&n=2>; rel="next"`},
		{"?n=2&last=b", []string{"c", "d"}, `</v2/r/tags/list?last=d&n=2>; rel="next"`},
		{"?n=2&last=d", []string{"e"}, ""},
		{"?last=bb", []string{"c", "d", "e"}, ""},
		{"?n=0", []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/r/tags/list"+tt.query, nil)
			expect(t, resp, body, http.StatusOK, "")
			var tl tagList
			if err := json.Unmarshal(body, &tl); err != nil {
				t.Fatal(err)
			}
			if tl.Name != "r" || strings.Join(tl.Tags, ",") != strings.Join(tt.tags, ",") || tl.Tags == nil {
				t.Fatalf("got %s, want tags %v", body, tt.tags)
			}
			if got := resp.Header.Get("Link"); got != tt.link {
				t.Fatalf("Link %q, want %q", got, tt.link)
			}
		})
	}
	resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/unknown/tags/list", nil)
	expect(t, resp, body, http.StatusNotFound, CodeNameUnknown)
}

func TestReferrers(t *testing.T) {
	reg := New(t)
	c := reg.Client()
	subject := imageManifest(t, reg, "r", nil, "base")
	subjDigest := pushManifest(t, reg, "r", "base", MediaTypeImageManifest, subject)
	subjDesc := map[string]any{"mediaType": MediaTypeImageManifest, "digest": subjDigest, "size": len(subject)}
	sig := imageManifest(t, reg, "r", map[string]any{"artifactType": "application/vnd.example.sig",
		"subject": subjDesc, "annotations": map[string]string{"k": "v"}})
	sbom := imageManifest(t, reg, "r", map[string]any{"subject": subjDesc}) // artifactType from config
	for _, m := range [][]byte{sig, sbom} {
		resp, body := do(t, c, "PUT", reg.URL()+"/v2/r/manifests/"+sha256Digest(m), m, "Content-Type", MediaTypeImageManifest)
		expect(t, resp, body, http.StatusCreated, "")
		if resp.Header.Get("OCI-Subject") != subjDigest {
			t.Fatalf("OCI-Subject %q, want %q", resp.Header.Get("OCI-Subject"), subjDigest)
		}
	}
	get := func(path string) (referrersIndex, *http.Response) {
		resp, body := do(t, c, "GET", reg.URL()+path, nil)
		expect(t, resp, body, http.StatusOK, "")
		if resp.Header.Get("Content-Type") != MediaTypeImageIndex {
			t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
		}
		var idx referrersIndex
		if err := json.Unmarshal(body, &idx); err != nil || idx.SchemaVersion != 2 || idx.MediaType != MediaTypeImageIndex || idx.Manifests == nil {
			t.Fatalf("bad referrers index %s: %v", body, err)
		}
		return idx, resp
	}
	idx, _ := get("/v2/r/referrers/" + subjDigest)
	if len(idx.Manifests) != 2 {
		t.Fatalf("got %d referrers, want 2", len(idx.Manifests))
	}
	byType := map[string]descriptor{}
	for _, d := range idx.Manifests {
		byType[d.ArtifactType] = d
	}
	if d := byType["application/vnd.example.sig"]; d.Digest != sha256Digest(sig) || d.Size != int64(len(sig)) || d.Annotations["k"] != "v" || d.MediaType != MediaTypeImageManifest {
		t.Fatalf("signature descriptor %+v", d)
	}
	if d := byType["application/vnd.oci.image.config.v1+json"]; d.Digest != sha256Digest(sbom) {
		t.Fatalf("config-typed descriptor %+v", d)
	}
	idx, resp := get("/v2/r/referrers/" + subjDigest + "?artifactType=application/vnd.example.sig")
	if resp.Header.Get("OCI-Filters-Applied") != "artifactType" || len(idx.Manifests) != 1 {
		t.Fatalf("filtered: header %q, %d manifests", resp.Header.Get("OCI-Filters-Applied"), len(idx.Manifests))
	}
	if idx, _ := get("/v2/never/pushed/referrers/" + subjDigest); len(idx.Manifests) != 0 {
		t.Fatalf("unknown repository has referrers %+v", idx)
	}
	resp, body := do(t, c, "GET", reg.URL()+"/v2/r/referrers/sha256:short", nil)
	expect(t, resp, body, http.StatusBadRequest, CodeDigestInvalid)
}
