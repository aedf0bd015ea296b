package commands

import (
	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/verify"
)

// addKeylessFlags adds the keyless trust flags, named as cosign names them.
func addKeylessFlags(cmd *cobra.Command, o *verify.IdentityOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.TrustedRoot, "trusted-root", "", "Sigstore trusted_root.json to verify keyless signatures against, offline (nothing is fetched)")
	fl.StringVar(&o.Subject, "certificate-identity", "", "keyless: the certificate's subject (email or URI) must be exactly this")
	fl.StringVar(&o.SubjectRegexp, "certificate-identity-regexp", "", "keyless: the certificate's subject must match this regular expression")
	fl.StringVar(&o.Issuer, "certificate-oidc-issuer", "", "keyless: the certificate's OIDC issuer must be exactly this")
	fl.StringVar(&o.IssuerRegexp, "certificate-oidc-issuer-regexp", "", "keyless: the certificate's OIDC issuer must match this regular expression")
	fl.StringVar(&o.GitHubWorkflowTrigger, "certificate-github-workflow-trigger", "", "keyless: the GitHub workflow trigger claim must be exactly this (e.g. push)")
	fl.StringVar(&o.GitHubWorkflowSHA, "certificate-github-workflow-sha", "", "keyless: the GitHub workflow commit claim must be exactly this")
	fl.StringVar(&o.GitHubWorkflowName, "certificate-github-workflow-name", "", "keyless: the GitHub workflow name claim must be exactly this")
	fl.StringVar(&o.GitHubWorkflowRepository, "certificate-github-workflow-repository", "", "keyless: the GitHub workflow repository claim (OWNER/REPO) must be exactly this")
	fl.StringVar(&o.GitHubWorkflowRef, "certificate-github-workflow-ref", "", "keyless: the GitHub workflow ref claim (e.g. refs/tags/v1.0.0) must be exactly this")
	fl.StringVar(&o.GitHubRepository, "github-repository", "", "keyless shorthand: trust the GitHub Actions workflows of OWNER/REPO (issuer, subject and source repository)")
}
