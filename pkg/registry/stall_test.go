package registry

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/addonpack/addonpack/testregistry"
)

// stalling pushes a to a testregistry whose rule (once pushed) applies to
// the GETs of the artifact's first layer, and returns a client with a short
// read timeout and the reference.
func stalling(t *testing.T, a *artifact, rule testregistry.FaultRule) (*Client, Reference, *testregistry.Registry) {
	t.Helper()
	st := testregistry.NewMemoryStorage()
	clean := testregistry.New(t, testregistry.WithStorage(st))
	if _, err := newTestClient(t, Options{}).Push(t.Context(), a.store, a.root, mustParse(t, clean.Host()+"/org/addon:v1")); err != nil {
		t.Fatal(err)
	}
	rule.Match = testregistry.MatchPath(a.layers[0].Digest.String())
	faulty := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{rule}}))
	return newTestClient(t, Options{ReadTimeout: 100 * time.Millisecond}), mustParse(t, faulty.Host()+"/org/addon:v1"), faulty
}

// TestReadTimeout: a registry that stops sending is abandoned after the
// read timeout, whether it stalls before the headers or in the middle of a
// blob; a download resumes where it stopped, and one that keeps stalling
// fails with ErrUnreachable in bounded time.
func TestReadTimeout(t *testing.T) {
	content := strings.Repeat("layer bytes ", 4096)
	tests := []struct {
		name     string
		rule     testregistry.FaultRule
		fails    bool
		requests int // GETs of the layer
	}{
		{"stalls midway once: resumed", testregistry.FaultRule{Kind: testregistry.StallMidway, Nth: 1}, false, 2},
		{"keeps stalling midway: resumed twice, then fails", testregistry.FaultRule{Kind: testregistry.StallMidway}, true, 3},
		{"stalls before the headers once: retried", testregistry.FaultRule{Kind: testregistry.Stall, Nth: 1}, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := buildArtifact(t, "stall", content)
			c, ref, reg := stalling(t, a, tt.rule)
			var buf bytes.Buffer
			err := c.FetchBlob(t.Context(), ref, a.layers[0], &buf)
			if tt.fails {
				if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "stalled") || !strings.Contains(err.Error(), a.layers[0].Digest.String()) {
					t.Fatalf("err = %v, want ErrUnreachable naming the stall and the digest", err)
				}
			} else if err != nil || buf.String() != content {
				t.Fatalf("FetchBlob: %v (%d of %d bytes)", err, buf.Len(), len(content))
			}
			// The registry logs a stalled request once the client has gone.
			got := 0
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				got = 0
				for _, r := range reg.Log() {
					if r.Method == "GET" && strings.Contains(r.Path, a.layers[0].Digest.String()) {
						got++
					}
				}
				if got >= tt.requests {
					break
				}
			}
			if got != tt.requests {
				t.Errorf("%d GETs of the layer, want %d", got, tt.requests)
			}
		})
	}
}

// TestReadTimeoutManifest: a manifest whose body stalls fails cleanly.
func TestReadTimeoutManifest(t *testing.T) {
	a := buildArtifact(t, "stall", "x")
	st := testregistry.NewMemoryStorage()
	clean := testregistry.New(t, testregistry.WithStorage(st))
	if _, err := newTestClient(t, Options{}).Push(t.Context(), a.store, a.root, mustParse(t, clean.Host()+"/org/addon:v1")); err != nil {
		t.Fatal(err)
	}
	faulty := testregistry.New(t, testregistry.WithStorage(st), testregistry.WithFaults(testregistry.Faults{Rules: []testregistry.FaultRule{
		{Match: testregistry.MatchManifestGET(), Kind: testregistry.StallMidway},
	}}))
	c := newTestClient(t, Options{ReadTimeout: 100 * time.Millisecond})
	_, err := c.FetchManifest(t.Context(), mustParse(t, faulty.Host()+"/org/addon:v1"), a.root)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("err = %v, want ErrUnreachable (stalled)", err)
	}
}

// TestReadTimeoutSlowIsNotStalled: a registry that is slow but keeps
// sending, and a caller that is slow to read, are not a stall.
func TestReadTimeoutSlowIsNotStalled(t *testing.T) {
	a := buildArtifact(t, "slow", strings.Repeat("x", 1<<16))
	c, ref, _ := stalling(t, a, testregistry.FaultRule{Kind: testregistry.Stall, Duration: 60 * time.Millisecond})
	slow := &slowWriter{}
	if err := c.FetchBlob(t.Context(), ref, a.layers[0], slow); err != nil {
		t.Fatal(err)
	}
}

// slowWriter takes its time over each write, longer than the read timeout
// in all.
type slowWriter struct{ n int }

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(30 * time.Millisecond)
	w.n += len(p)
	return len(p), nil
}
