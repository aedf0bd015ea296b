package sign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// The GitHub Actions variables a job with `permissions: id-token: write`
// sees, and the audience Fulcio expects.
const (
	EnvActionsTokenURL   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	EnvActionsTokenToken = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
	SigstoreAudience     = "sigstore"
)

// maxTokenSize bounds an identity token read from a file or GitHub.
const maxTokenSize = 64 << 10

// IdentityToken returns the OIDC token for keyless signing: arg itself, or
// the content of FILE for "@FILE"; with arg empty, the GitHub Actions
// ambient token (requested for the "sigstore" audience) when getenv shows
// the job may request one. It reports ErrSign naming what is missing when
// there is no token at all.
func IdentityToken(ctx context.Context, arg string, getenv func(string) string) (string, error) {
	switch {
	case strings.HasPrefix(arg, "@"):
		return tokenFile(arg[1:])
	case arg != "":
		return strings.TrimSpace(arg), nil
	}
	reqURL, reqToken := getenv(EnvActionsTokenURL), getenv(EnvActionsTokenToken)
	if reqURL == "" || reqToken == "" {
		return "", fmt.Errorf("%w: keyless signing needs an identity token: --identity-token TOKEN|@FILE, or a GitHub Actions job with permissions id-token: write (%s and %s unset)",
			ErrSign, EnvActionsTokenURL, EnvActionsTokenToken)
	}
	return actionsToken(ctx, reqURL, reqToken)
}

func tokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%w: identity token: %w", ErrSign, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenSize+1))
	if err != nil {
		return "", fmt.Errorf("%w: identity token %s: %w", ErrSign, path, err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case len(b) > maxTokenSize:
		return "", fmt.Errorf("%w: identity token %s: larger than %d bytes", ErrSign, path, maxTokenSize)
	case tok == "":
		return "", fmt.Errorf("%w: identity token %s is empty", ErrSign, path)
	}
	return tok, nil
}

// actionsToken asks the GitHub Actions runtime for an ID token, the way
// cosign's github-actions provider does.
func actionsToken(ctx context.Context, reqURL, reqToken string) (string, error) {
	u, err := url.Parse(reqURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%w: %s %q is not an http(s) URL", ErrSign, EnvActionsTokenURL, reqURL)
	}
	q := u.Query()
	q.Set("audience", SigstoreAudience)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, keylessTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions ID token: %w", ErrSign, err)
	}
	req.Header.Set("Authorization", "Bearer "+reqToken)
	req.Header.Set("Accept", "application/json")
	resp, err := (&http.Client{Timeout: keylessTimeout}).Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions ID token from %s: %w", ErrSign, u.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenSize+1))
	if err != nil {
		return "", fmt.Errorf("%w: GitHub Actions ID token from %s: %w", ErrSign, u.Host, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: GitHub Actions ID token from %s: HTTP %d (does the job have permissions id-token: write?)", ErrSign, u.Host, resp.StatusCode)
	}
	var v struct {
		Value string `json:"value"`
	}
	if len(body) > maxTokenSize || json.Unmarshal(body, &v) != nil || v.Value == "" {
		return "", fmt.Errorf("%w: GitHub Actions ID token from %s: no token in the answer", ErrSign, u.Host)
	}
	return v.Value, nil
}
