package testregistry

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestBlobUploadFlows(t *testing.T) {
	content := bytes.Repeat([]byte("addonpack"), 400) // 3600 bytes
	d := sha256Digest(content)
	tests := []struct {
		name   string
		upload func(t *testing.T, reg *Registry, repo string) *http.Response
	}{
		{"monolithic POST", func(t *testing.T, reg *Registry, repo string) *http.Response {
			resp, _ := do(t, reg.Client(), "POST", reg.URL()+"/v2/"+repo+"/blobs/uploads/?digest="+d, content)
			return resp
		}},
		{"POST then PUT", func(t *testing.T, reg *Registry, repo string) *http.Response {
			resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/"+repo+"/blobs/uploads/", nil)
			expect(t, resp, body, http.StatusAccepted, "")
			resp, _ = do(t, reg.Client(), "PUT", reg.URL()+resp.Header.Get("Location")+"?digest="+d, content)
			return resp
		}},
		{"chunked PATCH with Content-Range", func(t *testing.T, reg *Registry, repo string) *http.Response {
			resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/"+repo+"/blobs/uploads/", nil)
			expect(t, resp, body, http.StatusAccepted, "")
			loc := resp.Header.Get("Location")
			for start := 0; start < len(content); start += 1000 {
				end := min(start+1000, len(content))
				resp, body = do(t, reg.Client(), "PATCH", reg.URL()+loc, content[start:end],
					"Content-Range", fmt.Sprintf("%d-%d", start, end-1), "Content-Type", "application/octet-stream")
				expect(t, resp, body, http.StatusAccepted, "")
				if got, want := resp.Header.Get("Range"), fmt.Sprintf("0-%d", end-1); got != want {
					t.Fatalf("Range %q, want %q", got, want)
				}
				loc = resp.Header.Get("Location")
			}
			resp, _ = do(t, reg.Client(), "PUT", reg.URL()+loc+"?digest="+d, nil)
			return resp
		}},
		{"streamed PATCH then PUT with last chunk", func(t *testing.T, reg *Registry, repo string) *http.Response {
			resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/"+repo+"/blobs/uploads", nil)
			expect(t, resp, body, http.StatusAccepted, "")
			resp, body = do(t, reg.Client(), "PATCH", reg.URL()+resp.Header.Get("Location"), content[:3000])
			expect(t, resp, body, http.StatusAccepted, "")
			resp, _ = do(t, reg.Client(), "PUT", reg.URL()+resp.Header.Get("Location")+"?digest="+d, content[3000:],
				"Content-Range", fmt.Sprintf("3000-%d", len(content)-1))
			return resp
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := New(t)
			repo := "team/addons/app"
			resp := tt.upload(t, reg, repo)
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("completion status %d, want 201", resp.StatusCode)
			}
			if got := resp.Header.Get("Docker-Content-Digest"); got != d {
				t.Fatalf("Docker-Content-Digest %q, want %q", got, d)
			}
			if got, want := resp.Header.Get("Location"), "/v2/"+repo+"/blobs/"+d; got != want {
				t.Fatalf("Location %q, want %q", got, want)
			}
			resp, body := do(t, reg.Client(), "GET", reg.URL()+resp.Header.Get("Location"), nil)
			expect(t, resp, body, http.StatusOK, "")
			if !bytes.Equal(body, content) {
				t.Fatalf("GET returned %d bytes, want the %d pushed", len(body), len(content))
			}
		})
	}
}

func TestBlobUploadErrors(t *testing.T) {
	reg := New(t)
	c, base := reg.Client(), reg.URL()+"/v2/repo"
	content := []byte("hello blob")

	t.Run("digest mismatch", func(t *testing.T) {
		resp, body := do(t, c, "POST", base+"/blobs/uploads/?digest="+sha256Digest([]byte("other")), content)
		expect(t, resp, body, http.StatusBadRequest, CodeDigestInvalid)
	})
	t.Run("malformed digest", func(t *testing.T) {
		resp, body := do(t, c, "POST", base+"/blobs/uploads/?digest=sha256:abc", content)
		expect(t, resp, body, http.StatusBadRequest, CodeDigestInvalid)
	})
	t.Run("PUT without digest", func(t *testing.T) {
		resp, body := do(t, c, "POST", base+"/blobs/uploads/", nil)
		expect(t, resp, body, http.StatusAccepted, "")
		resp, body = do(t, c, "PUT", reg.URL()+resp.Header.Get("Location"), content)
		expect(t, resp, body, http.StatusBadRequest, CodeDigestInvalid)
	})
	t.Run("out-of-order chunk, status and cancel", func(t *testing.T) {
		resp, body := do(t, c, "POST", base+"/blobs/uploads/", nil)
		expect(t, resp, body, http.StatusAccepted, "")
		loc := reg.URL() + resp.Header.Get("Location")
		resp, body = do(t, c, "PATCH", loc, content[:4], "Content-Range", "0-3")
		expect(t, resp, body, http.StatusAccepted, "")
		resp, body = do(t, c, "PATCH", loc, content[6:], "Content-Range", "6-9")
		expect(t, resp, body, http.StatusRequestedRangeNotSatisfiable, CodeBlobUploadInvalid)
		resp, body = do(t, c, "GET", loc, nil)
		expect(t, resp, body, http.StatusNoContent, "")
		if resp.Header.Get("Range") != "0-3" || !strings.Contains(resp.Header.Get("Location"), "/blobs/uploads/") {
			t.Fatalf("status headers Range=%q Location=%q", resp.Header.Get("Range"), resp.Header.Get("Location"))
		}
		resp, body = do(t, c, "DELETE", loc, nil)
		expect(t, resp, body, http.StatusNoContent, "")
		resp, body = do(t, c, "GET", loc, nil)
		expect(t, resp, body, http.StatusNotFound, CodeBlobUploadUnknown)
	})
	t.Run("upload in another repository is unknown", func(t *testing.T) {
		resp, body := do(t, c, "POST", base+"/blobs/uploads/", nil)
		expect(t, resp, body, http.StatusAccepted, "")
		other := strings.Replace(resp.Header.Get("Location"), "/v2/repo/", "/v2/other/", 1)
		resp, body = do(t, c, "PATCH", reg.URL()+other, content)
		expect(t, resp, body, http.StatusNotFound, CodeBlobUploadUnknown)
	})
	t.Run("invalid name", func(t *testing.T) {
		resp, body := do(t, c, "POST", reg.URL()+"/v2/Bad_Name/blobs/uploads/", nil)
		expect(t, resp, body, http.StatusBadRequest, CodeNameInvalid)
	})
}

func TestBlobSHA512(t *testing.T) {
	reg := New(t)
	content := []byte("sha512 content")
	d := sha512Digest(content)
	resp, body := do(t, reg.Client(), "POST", reg.URL()+"/v2/r/blobs/uploads/?digest="+d, content)
	expect(t, resp, body, http.StatusCreated, "")
	if got := resp.Header.Get("Docker-Content-Digest"); got != d {
		t.Fatalf("digest header %q, want the sha512 %q", got, d)
	}
	resp, body = do(t, reg.Client(), "HEAD", reg.URL()+"/v2/r/blobs/"+d, nil)
	expect(t, resp, body, http.StatusOK, "")
	if resp.ContentLength != int64(len(content)) {
		t.Fatalf("HEAD Content-Length %d", resp.ContentLength)
	}
}

func TestBlobMount(t *testing.T) {
	reg := New(t)
	c := reg.Client()
	d := pushBlob(t, reg, "src", []byte("mount me"))

	resp, body := do(t, c, "POST", reg.URL()+"/v2/dst/blobs/uploads/?mount="+d+"&from=src", nil)
	expect(t, resp, body, http.StatusCreated, "")
	if resp.Header.Get("Location") != "/v2/dst/blobs/"+d || resp.Header.Get("Docker-Content-Digest") != d {
		t.Fatalf("mount headers %v", resp.Header)
	}
	resp, body = do(t, c, "GET", reg.URL()+"/v2/dst/blobs/"+d, nil)
	expect(t, resp, body, http.StatusOK, "")

	// Unknown in from: fall back to an upload session.
	missing := sha256Digest([]byte("missing"))
	resp, body = do(t, c, "POST", reg.URL()+"/v2/dst/blobs/uploads/?mount="+missing+"&from=src", nil)
	expect(t, resp, body, http.StatusAccepted, "")
	if !strings.HasPrefix(resp.Header.Get("Location"), "/v2/dst/blobs/uploads/") {
		t.Fatalf("fallback Location %q", resp.Header.Get("Location"))
	}
}

func TestBlobGetRangesAndDelete(t *testing.T) {
	reg := New(t)
	content := make([]byte, 2048)
	for i := range content {
		content[i] = byte(i)
	}
	d := pushBlob(t, reg, "r", content)
	url := reg.URL() + "/v2/r/blobs/" + d
	tests := []struct {
		rng          string
		status       int
		contentRange string
		want         []byte
	}{
		{"", 200, "", content},
		{"bytes=500-1499", 206, "bytes 500-1499/2048", content[500:1500]},
		{"bytes=500-", 206, "bytes 500-2047/2048", content[500:]},
		{"bytes=-500", 206, "bytes 1548-2047/2048", content[1548:]},
		{"bytes=2000-5000", 206, "bytes 2000-2047/2048", content[2000:]},
		{"bytes=500-0", 416, "bytes */2048", nil},
		{"bytes=5000-10000", 416, "bytes */2048", nil},
		{"bytes=-0", 416, "bytes */2048", nil},
		{"bytes=0-1,5-6", 200, "", content}, // multiple ranges are ignored
		{"items=0-1", 200, "", content},     // unknown unit is ignored
	}
	for _, tt := range tests {
		t.Run(tt.rng, func(t *testing.T) {
			var hdr []string
			if tt.rng != "" {
				hdr = []string{"Range", tt.rng}
			}
			resp, body := do(t, reg.Client(), "GET", url, nil, hdr...)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Content-Range"); got != tt.contentRange {
				t.Fatalf("Content-Range %q, want %q", got, tt.contentRange)
			}
			if tt.want != nil && !bytes.Equal(body, tt.want) {
				t.Fatalf("body of %d bytes, want %d", len(body), len(tt.want))
			}
			if tt.status != 416 && resp.Header.Get("Docker-Content-Digest") != d {
				t.Fatalf("Docker-Content-Digest %q", resp.Header.Get("Docker-Content-Digest"))
			}
		})
	}
	resp, body := do(t, reg.Client(), "DELETE", url, nil)
	expect(t, resp, body, http.StatusAccepted, "")
	resp, body = do(t, reg.Client(), "GET", url, nil)
	expect(t, resp, body, http.StatusNotFound, CodeBlobUnknown)
	resp, body = do(t, reg.Client(), "DELETE", url, nil)
	expect(t, resp, body, http.StatusNotFound, CodeBlobUnknown)
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/r/blobs/sha256:nothex", nil)
	expect(t, resp, body, http.StatusBadRequest, CodeDigestInvalid)
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/other/blobs/"+sha256Digest(content), nil)
	expect(t, resp, body, http.StatusNotFound, CodeBlobUnknown)
}
