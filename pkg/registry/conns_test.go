package registry

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConnectionsReused: with 8 requests in flight at a time, connections
// are kept alive and reused, for answers and for errors alike: the default
// transport keeps more than Go's 2 idle connections per host, and an error
// body is drained when closed (oras-go closes a 404 unread, and a body
// closed before EOF costs its connection).
func TestConnectionsReused(t *testing.T) {
	a := buildArtifact(t, "conns", "layer")
	for _, tc := range []struct {
		name string
		call func(c *Client, host string) error
	}{
		{"manifest found", func(c *Client, host string) error {
			_, _, err := c.ResolveManifest(t.Context(), mustParse(t, host+"/org/addon:v1"))
			return err
		}},
		{"manifest missing (404, body read)", func(c *Client, host string) error {
			_, _, err := c.ResolveManifest(t.Context(), mustParse(t, host+"/org/addon:missing"))
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}},
		{"referrers tag schema missing (404, body closed unread)", func(c *Client, host string) error {
			_, _, err := c.Referrers(t.Context(), mustParse(t, host+"/org/addon"), a.root, "", 8)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dials atomic.Int64
			h := newRegistryHandler() // no referrers API: the tag schema is read
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					dials.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			host := strings.TrimPrefix(srv.URL, "http://")
			c := newTestClient(t, Options{})
			if _, err := c.Push(t.Context(), a.store, a.root, mustParse(t, host+"/org/addon:v1")); err != nil {
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
						if err := tc.call(c, host); err != nil {
							t.Error(err)
						}
					}()
				}
				wg.Wait()
			}
			if n := dials.Load() - before; n > 2*inFlight {
				t.Fatalf("%d calls opened %d connections; want at most %d", inFlight*rounds, n, 2*inFlight)
			}
		})
	}
}
