package testregistry

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// storages returns a fresh instance of every Storage implementation.
func storages(t *testing.T) map[string]Storage {
	fsStore, err := NewFileStorage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Storage{"memory": NewMemoryStorage(), "filesystem": fsStore}
}

func TestStorageConcurrentPushesOfOneBlob(t *testing.T) {
	for name, store := range storages(t) {
		t.Run(name, func(t *testing.T) {
			reg := New(t, WithStorage(store))
			content := bytes.Repeat([]byte("same blob "), 5000)
			d := sha256Digest(content)
			var wg sync.WaitGroup
			errs := make(chan error, 16)
			for i := range 16 {
				wg.Go(func() {
					repo := fmt.Sprintf("repo%d", i%4)
					resp, err := reg.Client().Post(reg.URL()+"/v2/"+repo+"/blobs/uploads/?digest="+d, "application/octet-stream", bytes.NewReader(content))
					if err != nil {
						errs <- err
						return
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						errs <- fmt.Errorf("push to %s: status %d", repo, resp.StatusCode)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for i := range 4 {
				resp, body := do(t, reg.Client(), "GET", fmt.Sprintf("%s/v2/repo%d/blobs/%s", reg.URL(), i, d), nil)
				expect(t, resp, body, http.StatusOK, "")
				if !bytes.Equal(body, content) {
					t.Fatalf("repo%d serves %d bytes", i, len(body))
				}
			}
		})
	}
}

func TestFileStorageSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	var manifest []byte
	var uploadLoc string
	t.Run("first instance", func(t *testing.T) {
		store, err := NewFileStorage(dir)
		if err != nil {
			t.Fatal(err)
		}
		reg := New(t, WithStorage(store))
		manifest = imageManifest(t, reg, "persist/me", nil, "layer")
		pushManifest(t, reg, "persist/me", "v1", MediaTypeImageManifest, manifest)
		resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/persist/me/blobs/uploads/", nil)
		expect(t, resp, body, http.StatusAccepted, "")
		uploadLoc = resp.Header.Get("Location")
		resp, body = do(t, reg.Client(), "PATCH", reg.URL()+uploadLoc, []byte("half"), "Content-Range", "0-3")
		expect(t, resp, body, http.StatusAccepted, "")
	})
	store, err := NewFileStorage(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := New(t, WithStorage(store))
	resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/persist/me/manifests/v1", nil)
	expect(t, resp, body, http.StatusOK, "")
	if !bytes.Equal(body, manifest) || resp.Header.Get("Content-Type") != MediaTypeImageManifest {
		t.Fatalf("manifest after restart: %s (%s)", body, resp.Header.Get("Content-Type"))
	}
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/persist/me/blobs/"+sha256Digest([]byte("layer")), nil)
	expect(t, resp, body, http.StatusOK, "")
	resp, body = do(t, reg.Client(), "GET", reg.URL()+uploadLoc, nil)
	expect(t, resp, body, http.StatusNoContent, "")
	if resp.Header.Get("Range") != "0-3" {
		t.Fatalf("upload progress after restart: %q", resp.Header.Get("Range"))
	}
	// Nothing is left half-written in the staging area.
	if entries, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(entries) != 0 {
		t.Fatalf("staging area not empty: %v", entries)
	}
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/persist/me/tags/list", nil)
	expect(t, resp, body, http.StatusOK, "")
	if !strings.Contains(string(body), `"tags":["v1"]`) {
		t.Fatalf("tags after restart: %s", body)
	}
}

func TestSparseManifestsOption(t *testing.T) {
	missing := sha256Digest([]byte("not pushed"))
	index := mustJSON(t, map[string]any{"schemaVersion": 2, "mediaType": MediaTypeImageIndex,
		"manifests": []any{map[string]any{"mediaType": MediaTypeImageManifest, "digest": missing, "size": 10}}})
	for _, tt := range []struct {
		opts   []Option
		status int
	}{{nil, http.StatusBadRequest}, {[]Option{WithSparseManifests()}, http.StatusCreated}} {
		reg := New(t, tt.opts...)
		resp, body := do(t, reg.Client(), "PUT", reg.URL()+"/v2/r/manifests/sparse", index, "Content-Type", MediaTypeImageIndex)
		expect(t, resp, body, tt.status, "")
	}
}
