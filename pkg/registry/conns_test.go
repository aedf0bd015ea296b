package registry

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConnectionsReused: with 8 requests in flight at a time, the default
// transport keeps the connections alive instead of keeping 2 and dialling
// again for every other request (Go's default MaxIdleConnsPerHost).
func TestConnectionsReused(t *testing.T) {
	a := buildArtifact(t, "conns", "layer")
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(newRegistryHandler())
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	ref := mustParse(t, strings.TrimPrefix(srv.URL, "http://")+"/org/addon:v1")
	c := newTestClient(t, Options{})
	if _, err := c.Push(t.Context(), a.store, a.root, ref); err != nil {
		t.Fatalf("Push: %v", err)
	}
	const inFlight, rounds = 8, 20
	before := dials.Load()
	for range rounds {
		var wg sync.WaitGroup
		for range inFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Resolve(t.Context(), ref); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	if n := dials.Load() - before; n > 2*inFlight {
		t.Fatalf("%d requests opened %d connections; want at most %d", inFlight*rounds, n, 2*inFlight)
	}
}
