package testregistry

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a goroutine-safe access log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	addrCh := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Config{Addr: "127.0.0.1:0", Root: t.TempDir(), Log: logs}, func(addr string) { addrCh <- addr })
	}()
	var addr string
	select {
	case addr = <-addrCh:
	case err := <-done:
		t.Fatalf("Serve returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve never became ready")
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("ready address %q", addr)
	}
	resp, body := do(t, http.DefaultClient, "GET", "http://"+addr+"/v2/", nil)
	expect(t, resp, body, http.StatusOK, "")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not stop")
	}
	if !strings.Contains(logs.String(), "GET /v2/ 200 2") {
		t.Fatalf("access log %q", logs.String())
	}
}

func TestServeErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"bad address", Config{Addr: "256.0.0.1:0"}},
		{"missing htpasswd", Config{Addr: "127.0.0.1:0", Htpasswd: "/nonexistent/htpasswd"}},
		{"cert without key", Config{Addr: "127.0.0.1:0", TLSCert: "cert.pem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready := false
			err := Serve(context.Background(), tt.cfg, func(string) { ready = true })
			if err == nil || ready {
				t.Fatalf("err %v ready %v, want a startup error", err, ready)
			}
		})
	}
}
