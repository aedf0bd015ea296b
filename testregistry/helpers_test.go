package testregistry

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

func sha256Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func sha512Digest(b []byte) string {
	s := sha512.Sum512(b)
	return "sha512:" + hex.EncodeToString(s[:])
}

// do sends one request; hdr holds alternating header names and values.
func do(t *testing.T, c *http.Client, method, url string, body []byte, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, b
}

// expect checks the status code and, for errors, the OCI error code.
func expect(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", resp.Request.Method, resp.Request.URL, resp.StatusCode, status, body)
	}
	if code == "" {
		return
	}
	var eb ErrorBody
	if err := json.Unmarshal(body, &eb); err != nil || len(eb.Errors) == 0 {
		t.Fatalf("error body %q is not an OCI error: %v", body, err)
	}
	if eb.Errors[0].Code != code {
		t.Fatalf("error code %s, want %s (%s)", eb.Errors[0].Code, code, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type %q", ct)
	}
}

// pushBlob uploads content monolithically to repo and returns its digest.
func pushBlob(t *testing.T, reg *Registry, repo string, content []byte) string {
	t.Helper()
	d := sha256Digest(content)
	resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/"+repo+"/blobs/uploads/?digest="+d, content,
		"Content-Type", "application/octet-stream")
	expect(t, resp, body, http.StatusCreated, "")
	return d
}

// pushManifest pushes a manifest under ref and returns its sha256 digest.
func pushManifest(t *testing.T, reg *Registry, repo, ref, mediaType string, m []byte) string {
	t.Helper()
	resp, body := do(t, reg.Client(), "PUT", reg.URL()+"/v2/"+repo+"/manifests/"+ref, m, "Content-Type", mediaType)
	expect(t, resp, body, http.StatusCreated, "")
	return sha256Digest(m)
}

// imageManifest builds an OCI image manifest over a pushed config and layers.
func imageManifest(t *testing.T, reg *Registry, repo string, extra map[string]any, layers ...string) []byte {
	t.Helper()
	cfg := []byte(`{"architecture":"amd64","os":"linux"}`)
	cfgDigest := pushBlob(t, reg, repo, cfg)
	var descs []map[string]any
	for _, l := range layers {
		d := pushBlob(t, reg, repo, []byte(l))
		descs = append(descs, map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": d, "size": len(l)})
	}
	m := map[string]any{
		"schemaVersion": 2,
		"mediaType":     MediaTypeImageManifest,
		"config":        map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cfgDigest, "size": len(cfg)},
		"layers":        descs,
	}
	if descs == nil {
		m["layers"] = []any{}
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
