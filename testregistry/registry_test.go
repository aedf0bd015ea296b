package testregistry

import (
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestParseRoute(t *testing.T) {
	tests := []struct {
		path string
		want route
		ok   bool
	}{
		{"/v2/", route{kind: routeBase}, true},
		{"/v2/a/b/c/blobs/sha256:x", route{routeBlob, "a/b/c", "sha256:x"}, true},
		{"/v2/a/blobs/uploads/", route{routeUploadStart, "a", ""}, true},
		{"/v2/a/blobs/uploads", route{routeUploadStart, "a", ""}, true},
		{"/v2/a/blobs/uploads/abc", route{routeUpload, "a", "abc"}, true},
		{"/v2/blobs/blobs/uploads/", route{routeUploadStart, "blobs", ""}, true},
		{"/v2/x/manifests/manifests", route{routeManifest, "x", "manifests"}, true},
		{"/v2/tags/list/tags/list", route{routeTags, "tags/list", ""}, true},
		{"/v2/a/referrers/sha256:x", route{routeReferrers, "a", "sha256:x"}, true},
		{"/v2/a/unknown", route{}, false},
		{"/v2/a/manifests/", route{}, false},
	}
	for _, tt := range tests {
		got, ok := parseRoute(tt.path)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseRoute(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPingLogAndErrors(t *testing.T) {
	reg := New(t)
	if !strings.HasPrefix(reg.Host(), "127.0.0.1:") || reg.URL() != "http://"+reg.Host() || reg.CertPool() != nil {
		t.Fatalf("Host %q URL %q", reg.Host(), reg.URL())
	}
	resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/", nil)
	expect(t, resp, body, http.StatusOK, "")
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/r/blobs/sha256:"+strings.Repeat("a", 64), nil, "Range", "bytes=0-1")
	expect(t, resp, body, http.StatusNotFound, CodeBlobUnknown)
	resp, body = do(t, reg.Client(), "POST", reg.URL()+"/v2/r/manifests/latest", nil)
	expect(t, resp, body, http.StatusMethodNotAllowed, CodeUnsupported)
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/r/nothing", nil)
	expect(t, resp, body, http.StatusNotFound, CodeUnsupported)
	resp, body = do(t, reg.Client(), "GET", reg.URL()+"/v2/"+strings.Repeat("a", 256)+"/tags/list", nil)
	expect(t, resp, body, http.StatusBadRequest, CodeNameInvalid)

	log := reg.Log()
	if len(log) != 5 {
		t.Fatalf("log has %d entries: %+v", len(log), log)
	}
	if log[0] != (Request{Method: "GET", Path: "/v2/", Status: 200, Bytes: 2}) {
		t.Fatalf("ping entry %+v", log[0])
	}
	if log[1].Status != 404 || log[1].Range != "bytes=0-1" || log[1].Bytes == 0 {
		t.Fatalf("blob entry %+v", log[1])
	}
	reg.ResetLog()
	if len(reg.Log()) != 0 {
		t.Fatal("ResetLog kept entries")
	}
}

func TestBasicAuth(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("bcrypt-pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum([]byte("sha-pw"))
	htpasswd := filepath.Join(dir, "htpasswd")
	content := "# users\nalice:" + string(hash) + "\nbob:{SHA}" + base64.StdEncoding.EncodeToString(sum[:]) + "\n"
	if err := os.WriteFile(htpasswd, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		opt        Option
		user, pass string
		status     int
	}{
		{"basic ok", WithBasicAuth("u", "p"), "u", "p", 200},
		{"basic wrong password", WithBasicAuth("u", "p"), "u", "x", 401},
		{"basic missing", WithBasicAuth("u", "p"), "", "", 401},
		{"htpasswd bcrypt", WithHtpasswd(htpasswd), "alice", "bcrypt-pw", 200},
		{"htpasswd sha", WithHtpasswd(htpasswd), "bob", "sha-pw", 200},
		{"htpasswd wrong", WithHtpasswd(htpasswd), "alice", "sha-pw", 401},
		{"htpasswd unknown user", WithHtpasswd(htpasswd), "carol", "bcrypt-pw", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := New(t, tt.opt)
			req, _ := http.NewRequest("GET", reg.URL()+"/v2/", nil)
			if tt.user != "" {
				req.SetBasicAuth(tt.user, tt.pass)
			}
			resp, err := reg.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") != `Basic realm="addonpack-testregistry"` {
				t.Fatalf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestTLS(t *testing.T) {
	reg := New(t, WithTLS())
	if !strings.HasPrefix(reg.URL(), "https://127.0.0.1:") || reg.CertPool() == nil {
		t.Fatalf("URL %q pool %v", reg.URL(), reg.CertPool())
	}
	resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/", nil)
	expect(t, resp, body, http.StatusOK, "")
	if resp.TLS == nil {
		t.Fatal("response was not over TLS")
	}
	plain := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}}
	if _, err := plain.Get(reg.URL() + "/v2/"); err == nil {
		t.Fatal("a client without the pool trusted the self-signed certificate")
	}
}
