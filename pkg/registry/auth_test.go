package registry

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// requireBasic wraps a registry so that every request needs Basic user:pass.
func requireBasic(user, pass string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func writeDockerConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pushAndResolve pushes a small artifact and resolves it back.
func pushAndResolve(t *testing.T, c *Client, host string) error {
	t.Helper()
	a := buildArtifact(t, "auth", "layer")
	ref := mustParse(t, host+"/private/addon:v1")
	if _, err := c.Push(t.Context(), a.store, a.root, ref); err != nil {
		return err
	}
	d, err := c.Resolve(t.Context(), ref)
	if err != nil {
		return err
	}
	if d.Digest != a.root.Digest {
		t.Fatalf("Resolve = %s, want %s", d.Digest, a.root.Digest)
	}
	_, err = c.FetchBlobBytes(t.Context(), ref, a.layers[0], 1024)
	return err
}

func TestDockerConfigAuths(t *testing.T) {
	host := startRegistry(t, requireBasic("alice", "s3cret"))
	enc := base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))
	cfg := writeDockerConfig(t, fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, enc))
	c := newTestClient(t, Options{DockerConfig: cfg})
	if err := pushAndResolve(t, c, host); err != nil {
		t.Fatalf("with docker config auths: %v", err)
	}
}

func TestDockerConfigCredentialHelper(t *testing.T) {
	host := startRegistry(t, requireBasic("helper-user", "helper-pass"))
	bin := t.TempDir()
	marker := filepath.Join(bin, "called")
	script := `#!/bin/sh
server=$(cat)
echo "$1 $server" >> '` + marker + `'
if [ "$1" = get ]; then
  printf '{"ServerURL":"%s","Username":"helper-user","Secret":"helper-pass"}' "$server"
  exit 0
fi
echo "unsupported" >&2
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-test"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg := writeDockerConfig(t, fmt.Sprintf(`{"credHelpers":{%q:"test"}}`, host))
	c := newTestClient(t, Options{DockerConfig: cfg})
	if err := pushAndResolve(t, c, host); err != nil {
		t.Fatalf("with credential helper: %v", err)
	}
	calls, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("credential helper was not run: %v", err)
	}
	if !strings.Contains(string(calls), "get "+host) {
		t.Fatalf("credential helper calls = %q, want a get for %s", calls, host)
	}
}

func TestWrongCredentialsUnauthorized(t *testing.T) {
	host := startRegistry(t, requireBasic("alice", "s3cret"))
	a := buildArtifact(t, "auth", "layer")
	ref := mustParse(t, host+"/private/addon:v1")

	enc := base64.StdEncoding.EncodeToString([]byte("alice:wrong"))
	wrong := newTestClient(t, Options{DockerConfig: writeDockerConfig(t, fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, enc))})
	anonymous := newTestClient(t, Options{})
	static := newTestClient(t, Options{Credential: auth.StaticCredential(host, auth.Credential{Username: "bob", Password: "x"})})
	for name, c := range map[string]*Client{"wrong": wrong, "anonymous": anonymous, "static": static} {
		t.Run(name, func(t *testing.T) {
			if _, err := c.Push(t.Context(), a.store, a.root, ref); !errors.Is(err, ErrUnauthorized) {
				t.Errorf("Push: %v, want ErrUnauthorized", err)
			}
			_, err := c.Resolve(t.Context(), ref)
			if !errors.Is(err, ErrUnauthorized) {
				t.Errorf("Resolve: %v, want ErrUnauthorized", err)
			}
			if err != nil && !strings.Contains(err.Error(), ref.String()) {
				t.Errorf("error %q does not name %s", err, ref)
			}
			// Where the refused credentials came from, and how to give others.
			want := "docker login " + host
			if name == "static" {
				want = "with the credentials the program gave"
			} else if cfg := c.opts.DockerConfig; err != nil && !strings.Contains(err.Error(), "credentials read from "+cfg) {
				t.Errorf("error %q does not name the docker config %s", err, cfg)
			}
			if err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
			if err := c.FetchBlob(t.Context(), ref, a.layers[0], &strings.Builder{}); !errors.Is(err, ErrUnauthorized) {
				t.Errorf("FetchBlob: %v, want ErrUnauthorized", err)
			}
		})
	}
	// The right static credential overrides DockerConfig.
	right := newTestClient(t, Options{
		DockerConfig: writeDockerConfig(t, fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, enc)),
		Credential:   auth.StaticCredential(host, auth.Credential{Username: "alice", Password: "s3cret"}),
	})
	if err := pushAndResolve(t, right, host); err != nil {
		t.Fatalf("Options.Credential: %v", err)
	}
}

func TestNewRejectsBrokenDockerConfig(t *testing.T) {
	_, err := New(Options{DockerConfig: writeDockerConfig(t, "{not json")})
	if err == nil {
		t.Fatal("New accepted a malformed docker config")
	}
}
