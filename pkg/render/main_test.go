package render

import (
	"os"
	"testing"
)

// TestMain makes the tests hermetic even if a refusal check had a hole:
// with an empty PATH kustomize cannot run git, and with the http proxies
// pointing at a closed loopback port (read once by net/http, so set before
// any test runs) an http fetch fails at once without a DNS lookup. Tests
// then detect the attempt from the error ("'git' program", `Get "http`).
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"PATH":        "",
		"HTTP_PROXY":  "http://127.0.0.1:9",
		"HTTPS_PROXY": "http://127.0.0.1:9",
		"NO_PROXY":    "",
		"http_proxy":  "http://127.0.0.1:9",
		"https_proxy": "http://127.0.0.1:9",
		"no_proxy":    "",
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}
