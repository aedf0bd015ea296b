package sign

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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
// A token that is not a JWT naming a subject and an issuer is refused here,
// before anything is contacted: Fulcio would refuse it, and sigstore-go's
// message would blame Fulcio for it.
func IdentityToken(ctx context.Context, arg string, getenv func(string) string) (string, error) {
	var (
		tok, from string
		err       error
	)
	switch {
	case strings.HasPrefix(arg, "@"):
		tok, err = tokenFile(arg[1:])
		from = arg[1:]
	case arg != "":
		tok, from = strings.TrimSpace(arg), "--identity-token"
	default:
		reqURL, reqToken := getenv(EnvActionsTokenURL), getenv(EnvActionsTokenToken)
		if reqURL == "" || reqToken == "" {
			return "", fmt.Errorf("%w: keyless signing needs an identity token: --identity-token TOKEN|@FILE, or a GitHub Actions job with permissions id-token: write (%s and %s unset)",
				ErrSign, EnvActionsTokenURL, EnvActionsTokenToken)
		}
		tok, err = actionsToken(ctx, reqURL, reqToken)
		from = "the GitHub Actions ID token"
	}
	if err != nil {
		return "", err
	}
	if err := checkJWT(tok); err != nil {
		return "", fmt.Errorf("%w: identity token (%s): %w; nothing was sent to Fulcio", ErrSign, from, err)
	}
	return tok, nil
}

// checkJWT checks that tok reads as an OIDC identity token: three
// base64url parts, the second a JSON object naming an issuer and a subject
// (or an email). Its signature is Fulcio's to check.
func checkJWT(tok string) error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return fmt.Errorf("not a JWT: %d dot-separated parts, want 3", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return fmt.Errorf("not a JWT: its payload is not base64url: %w", err)
	}
	var claims struct {
		Iss   string `json:"iss"`
		Sub   string `json:"sub"`
		Email string `json:"email"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return fmt.Errorf("not a JWT: its payload is not a JSON object: %w", err)
	}
	if claims.Iss == "" || (claims.Sub == "" && claims.Email == "") {
		return errors.New("the token names no issuer (iss) or no subject (sub, email)")
	}
	return nil
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
