package registry

import (
	"io"
	"net/http"
)

// drainErrors is the base transport under the retry and auth layers. It
// makes closing an error response drain what is left of its body (at most
// maxErrorBytes), so that the connection goes back to the idle pool.
//
// Error bodies are decoded with a json.Decoder, here and in oras-go, which
// stops at the end of the JSON object: the trailing newline registries send
// stays unread, and Go's transport closes a connection whose body is closed
// before EOF. On distribution 2.8 every 404 (a missing .sig or .att tag, the
// referrers tag schema) then cost a new connection.
type drainErrors struct{ next http.RoundTripper }

func (t drainErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode >= http.StatusBadRequest && resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = drainingBody{resp.Body}
	}
	return resp, err
}

// drainingBody reads up to maxErrorBytes of what is left before closing.
type drainingBody struct{ io.ReadCloser }

func (b drainingBody) Close() error {
	_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, maxErrorBytes))
	return b.ReadCloser.Close()
}
