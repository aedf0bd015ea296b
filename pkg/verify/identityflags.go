package verify

import (
	"fmt"
	"regexp"
)

// GitHubActionsIssuer is the OIDC issuer of GitHub Actions workflow tokens.
const GitHubActionsIssuer = "https://token.actions.githubusercontent.com"

// IdentityOptions are the command line's keyless trust, in cosign's
// vocabulary (--trusted-root, --certificate-identity…, --certificate-github-…,
// and the --github-repository shorthand).
type IdentityOptions struct {
	TrustedRoot   string // path of a trusted_root.json
	Subject       string // --certificate-identity
	SubjectRegexp string // --certificate-identity-regexp
	Issuer        string // --certificate-oidc-issuer
	IssuerRegexp  string // --certificate-oidc-issuer-regexp
	// The GitHub workflow claims (Fulcio extensions 1.3.6.1.4.1.57264.1.2–1.6).
	GitHubWorkflowTrigger    string
	GitHubWorkflowSHA        string
	GitHubWorkflowName       string
	GitHubWorkflowRepository string
	GitHubWorkflowRef        string
	// GitHubRepository ("OWNER/REPO") trusts the workflows of one
	// repository: issuer GitHub Actions, subject a workflow of the
	// repository, source repository extension the repository.
	GitHubRepository string
}

// IsSet reports whether any keyless flag was given.
func (o IdentityOptions) IsSet() bool { return o != IdentityOptions{} }

var ownerRepo = regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`)

// Identity returns the identity the flags describe, its trusted root
// loaded from TrustedRoot (not pinned: the user named the file). Errors
// about the flags match ErrIdentityFlags.
func (o IdentityOptions) Identity() (*Identity, error) {
	if o.TrustedRoot == "" {
		return nil, fmt.Errorf("%w: keyless verification needs --trusted-root FILE (a Sigstore trusted_root.json; nothing is fetched)", ErrIdentityFlags)
	}
	id := &Identity{Name: "command line", Subject: o.Subject, SubjectRegexp: o.SubjectRegexp, Issuer: o.Issuer, IssuerRegexp: o.IssuerRegexp}
	id.Extensions.GithubWorkflowTrigger = o.GitHubWorkflowTrigger
	id.Extensions.GithubWorkflowSHA = o.GitHubWorkflowSHA
	id.Extensions.GithubWorkflowName = o.GitHubWorkflowName
	id.Extensions.GithubWorkflowRepository = o.GitHubWorkflowRepository
	id.Extensions.GithubWorkflowRef = o.GitHubWorkflowRef
	if r := o.GitHubRepository; r != "" {
		if !ownerRepo.MatchString(r) {
			return nil, fmt.Errorf("%w: --github-repository %q: want OWNER/REPO", ErrIdentityFlags, r)
		}
		if id.Issuer == "" && id.IssuerRegexp == "" {
			id.Issuer = GitHubActionsIssuer
		}
		if id.Subject == "" && id.SubjectRegexp == "" {
			id.SubjectRegexp = "^" + regexp.QuoteMeta("https://github.com/"+r+"/.github/workflows/")
		}
		id.Extensions.SourceRepositoryURI = "https://github.com/" + r
	}
	switch {
	case id.Subject == "" && id.SubjectRegexp == "":
		return nil, fmt.Errorf("%w: --trusted-root needs --certificate-identity or --certificate-identity-regexp (or --github-repository)", ErrIdentityFlags)
	case id.Issuer == "" && id.IssuerRegexp == "":
		return nil, fmt.Errorf("%w: --trusted-root needs --certificate-oidc-issuer or --certificate-oidc-issuer-regexp (or --github-repository)", ErrIdentityFlags)
	case id.Subject != "" && id.SubjectRegexp != "":
		return nil, fmt.Errorf("%w: give --certificate-identity or --certificate-identity-regexp, not both", ErrIdentityFlags)
	case id.Issuer != "" && id.IssuerRegexp != "":
		return nil, fmt.Errorf("%w: give --certificate-oidc-issuer or --certificate-oidc-issuer-regexp, not both", ErrIdentityFlags)
	}
	tr, err := LoadTrustedRoot("--trusted-root", o.TrustedRoot, "")
	if err != nil {
		return nil, err
	}
	id.Root = tr
	if err := id.compile(); err != nil {
		return nil, err
	}
	return id, nil
}
