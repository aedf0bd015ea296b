package testsigstore

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Claims are the claims of a test ID token: the registered ones and those
// of GitHub Actions that Fulcio copies into a certificate. A token with
// JobWorkflowRef is a GitHub workflow identity; otherwise Email (verified)
// names the signer.
type Claims struct {
	Issuer   string           `json:"iss"`
	Subject  string           `json:"sub"`
	Audience jwt.Audience     `json:"aud"`
	Expiry   *jwt.NumericDate `json:"exp"`
	IssuedAt *jwt.NumericDate `json:"iat"`

	Email         string `json:"email,omitempty"`
	EmailVerified bool   `json:"email_verified,omitempty"`

	JobWorkflowRef       string `json:"job_workflow_ref,omitempty"`
	JobWorkflowSHA       string `json:"job_workflow_sha,omitempty"`
	Repository           string `json:"repository,omitempty"`
	RepositoryID         string `json:"repository_id,omitempty"`
	RepositoryOwner      string `json:"repository_owner,omitempty"`
	RepositoryOwnerID    string `json:"repository_owner_id,omitempty"`
	RepositoryVisibility string `json:"repository_visibility,omitempty"`
	Ref                  string `json:"ref,omitempty"`
	SHA                  string `json:"sha,omitempty"`
	EventName            string `json:"event_name,omitempty"`
	Workflow             string `json:"workflow,omitempty"`
	WorkflowRef          string `json:"workflow_ref,omitempty"`
	WorkflowSHA          string `json:"workflow_sha,omitempty"`
	RunID                string `json:"run_id,omitempty"`
	RunAttempt           string `json:"run_attempt,omitempty"`
	RunnerEnvironment    string `json:"runner_environment,omitempty"`
}

// Claims returns the ID token claims GitHub Actions gives the job of w,
// from which Fulcio derives exactly w.Identity() (see fulcioIdentity).
func (w GitHubWorkflow) Claims() Claims {
	id := w.Identity()
	e := id.Extensions
	const gh = "https://github.com/"
	owner, _, _ := strings.Cut(w.Repository, "/")
	run, attempt := "1", "1"
	if rest, ok := strings.CutPrefix(e.RunInvocationURI, gh+w.Repository+"/actions/runs/"); ok {
		run, attempt, _ = strings.Cut(rest, "/attempts/")
	}
	return Claims{
		Issuer:               e.Issuer,
		Subject:              "repo:" + w.Repository + ":ref:" + e.SourceRepositoryRef,
		Audience:             jwt.Audience{"sigstore"},
		JobWorkflowRef:       strings.TrimPrefix(e.BuildSignerURI, gh),
		JobWorkflowSHA:       e.BuildSignerDigest,
		Repository:           w.Repository,
		RepositoryID:         e.SourceRepositoryIdentifier,
		RepositoryOwner:      owner,
		RepositoryOwnerID:    e.SourceRepositoryOwnerIdentifier,
		RepositoryVisibility: e.SourceRepositoryVisibilityAtSigning,
		Ref:                  e.SourceRepositoryRef,
		SHA:                  e.SourceRepositoryDigest,
		EventName:            e.BuildTrigger,
		Workflow:             e.GithubWorkflowName,
		WorkflowRef:          strings.TrimPrefix(e.BuildConfigURI, gh),
		WorkflowSHA:          e.BuildConfigDigest,
		RunID:                run,
		RunAttempt:           attempt,
		RunnerEnvironment:    e.RunnerEnvironment,
	}
}

// EmailClaims are the claims of a verified e-mail identity's token.
func EmailClaims(addr, issuer string) Claims {
	return Claims{Issuer: issuer, Subject: addr, Audience: jwt.Audience{"sigstore"}, Email: addr, EmailVerified: true}
}

// OIDCIssuer is a test identity provider: it signs ID tokens (ES256) that
// the test Fulcio accepts for the issuer names it was told to trust.
type OIDCIssuer struct {
	key *ecdsa.PrivateKey
	now func() time.Time
}

// NewOIDCIssuer makes an issuer with a fresh P-256 key.
func NewOIDCIssuer() (*OIDCIssuer, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &OIDCIssuer{key: k, now: time.Now}, nil
}

// PublicKey is what a Fulcio trusting this issuer verifies tokens with.
func (o *OIDCIssuer) PublicKey() crypto.PublicKey { return o.key.Public() }

// Token signs c as a compact JWT; a zero Expiry or IssuedAt is set to a
// ten-minute token issued now, as GitHub's are.
func (o *OIDCIssuer) Token(c Claims) (string, error) {
	now := o.now()
	if c.IssuedAt == nil {
		c.IssuedAt = jwt.NewNumericDate(now)
	}
	if c.Expiry == nil {
		c.Expiry = jwt.NewNumericDate(now.Add(10 * time.Minute))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: o.key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(s).Claims(c).Serialize()
}

// verifyToken is the check Fulcio makes of an ID token, reduced to what a
// test needs to be faithful: an ES256 signature by one of the trusted
// issuers' keys, the issuer name, the "sigstore" audience and the token's
// time window (a minute of leeway).
func verifyToken(raw string, trusted map[string]crypto.PublicKey, now time.Time) (*Claims, error) {
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, fmt.Errorf("identity token: %w", err)
	}
	var unverified Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, fmt.Errorf("identity token: %w", err)
	}
	key, ok := trusted[unverified.Issuer]
	if !ok {
		return nil, fmt.Errorf("identity token: issuer %q is not trusted", unverified.Issuer)
	}
	var c Claims
	var reg jwt.Claims
	if err := tok.Claims(key, &c, &reg); err != nil {
		return nil, fmt.Errorf("identity token of %s: %w", c.Issuer, err)
	}
	if err := reg.ValidateWithLeeway(jwt.Expected{Issuer: unverified.Issuer, AnyAudience: jwt.Audience{"sigstore"}, Time: now}, time.Minute); err != nil {
		return nil, fmt.Errorf("identity token of %s: %w", c.Issuer, err)
	}
	if c.Subject == "" {
		return nil, errors.New("identity token: no subject")
	}
	if c.Email != "" && !c.EmailVerified {
		return nil, fmt.Errorf("identity token: e-mail %s not verified", c.Email)
	}
	return &c, nil
}
