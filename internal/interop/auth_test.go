package interop_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/internal/realregistry"
)

const (
	authUser     = "robot"
	authPassword = "s3cret-for-tests"
)

// authRegistry starts distribution 2.8 with htpasswd basic auth (bcrypt).
func authRegistry(t *testing.T) string {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(authPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	htpasswd := filepath.Join(t.TempDir(), "htpasswd")
	if err := os.WriteFile(htpasswd, []byte(authUser+":"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return realregistry.Start(t, realregistry.Options{Htpasswd: htpasswd})
}

// dockerConfig writes DIR/config.json with doc and returns DIR.
func dockerConfig(t *testing.T, doc any) string {
	t.Helper()
	dir := t.TempDir()
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func auths(host, user, password string) map[string]any {
	return map[string]any{"auths": map[string]any{host: map[string]string{
		"auth": base64.StdEncoding.EncodeToString([]byte(user + ":" + password))}}}
}

// credentialHelper installs docker-credential-<name> on PATH: a shell
// script answering "get" for host with the test user, as the docker
// credential-helper protocol says.
func credentialHelper(t *testing.T, name, host string) {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
[ "$1" = get ] || exit 1
read server
if [ "$server" = %q ]; then
  printf '{"ServerURL":"%%s","Username":%q,"Secret":%q}' "$server"
else
  echo "credentials not found in native keychain"; exit 1
fi
`, host, authUser, authPassword)
	if err := os.WriteFile(filepath.Join(dir, "docker-credential-"+name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestCredentials: against distribution 2.8 with htpasswd basic auth, every
// flow (push + sign in both formats, attest, verify, pull, render, copy,
// tarball round trip) works with credentials from a docker config.json
// (auths), from a credential helper (credHelpers) and from a credsStore;
// no or wrong credentials exit 6.
func TestCredentials(t *testing.T) {
	host := authRegistry(t)
	credentialHelper(t, "addonpacktest", host)
	for _, tc := range []struct {
		name string
		doc  any
	}{
		{"auths", auths(host, authUser, authPassword)},
		{"credHelpers", map[string]any{"credHelpers": map[string]string{host: "addonpacktest"}}},
		{"credsStore", map[string]any{"credsStore": "addonpacktest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"COSIGN_PASSWORD": "test-password", "DOCKER_CONFIG": dockerConfig(t, tc.doc)}
			dir := t.TempDir()
			src, key := filepath.Join(dir, "hello"), filepath.Join(dir, "k")
			must(t, nil, "init", src)
			must(t, env, "keygen", "--output-key-prefix", key)
			ref := host + "/" + strings.ToLower(tc.name) + "/hello:0.1.0"
			must(t, env, "push", src, ref, "--key", key+".key")
			must(t, env, "sign", ref, "--key", key+".key", "--signature-format", "bundle")
			pred := filepath.Join(dir, "sbom.json")
			os.WriteFile(pred, []byte(`{"spdxVersion":"SPDX-2.3"}`), 0o600)
			must(t, env, "attest", ref, "--key", key+".key", "--predicate", pred, "--type", "spdxjson", "--signature-format", "bundle")
			must(t, env, "verify", ref, "--key", key+".pub", "--require-provenance", "--require-attestation", "https://spdx.dev/Document")
			must(t, env, "pull", ref, "-o", filepath.Join(dir, "pulled"), "--key", key+".pub", "--no-cache")
			if out := must(t, env, "render", ref, "--key", key+".pub", "--no-cache"); !strings.Contains(out, "kind: Deployment") {
				t.Fatalf("render: %s", out)
			}
			must(t, env, "copy", ref, host+"/copies/"+strings.ToLower(tc.name)+"/hello", "--key", key+".pub", "--require-provenance")
			tarball := filepath.Join(dir, "hello.tar")
			must(t, env, "copy", ref, "--to-tarball", tarball, "--key", key+".pub")
			must(t, env, "copy", "--from-tarball", tarball, host+"/airgap/"+strings.ToLower(tc.name)+"/hello", "--key", key+".pub", "--require-provenance")
			must(t, env, "verify", host+"/airgap/"+strings.ToLower(tc.name)+"/hello:0.1.0", "--key", key+".pub",
				"--require-provenance", "--require-attestation", "https://spdx.dev/Document")
		})
	}

	t.Run("denied", func(t *testing.T) {
		dir := t.TempDir()
		src := filepath.Join(dir, "hello")
		must(t, nil, "init", src)
		for name, doc := range map[string]any{
			"no credentials":          map[string]any{},
			"wrong password":          auths(host, authUser, "wrong"),
			"unknown user":            auths(host, "nobody", authPassword),
			"helper for another host": map[string]any{"credHelpers": map[string]string{"127.0.0.1:1": "addonpacktest"}},
		} {
			env := map[string]string{"DOCKER_CONFIG": dockerConfig(t, doc)}
			if r := addonpack(t, env, "push", src, host+"/denied/hello:0.1.0"); r.code != commands.ExitDenied || !strings.Contains(r.err, host) {
				t.Errorf("%s: push exit %d, want %d naming %s:\n%s", name, r.code, commands.ExitDenied, host, r.err)
			}
		}
	})
}

// TestPeersShareCredentials: crane and oras read the same docker
// config.json that addonpack does.
func TestPeersShareCredentials(t *testing.T) {
	crane, oras := tool(t, "crane"), tool(t, "oras")
	host := authRegistry(t)
	cfg := dockerConfig(t, auths(host, authUser, authPassword))
	env := map[string]string{"DOCKER_CONFIG": cfg}
	dir := t.TempDir()
	src := filepath.Join(dir, "hello")
	must(t, nil, "init", src)
	ref := host + "/addons/hello:0.1.0"
	must(t, env, "push", src, ref)
	peer(t, crane, []string{"DOCKER_CONFIG=" + cfg}, "export", "--insecure", ref, filepath.Join(dir, "export.tar"))
	peer(t, oras, []string{"DOCKER_CONFIG=" + cfg}, "pull", "--plain-http", "--registry-config", filepath.Join(cfg, "config.json"), ref, "-o", filepath.Join(dir, "oras"))
	if _, err := os.Stat(filepath.Join(dir, "oras", "package.tar.gz")); err != nil {
		t.Fatal(err)
	}
}
