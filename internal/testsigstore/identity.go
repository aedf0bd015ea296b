package testsigstore

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
)

// Well-known OIDC issuers.
const (
	GitHubActionsIssuer = "https://token.actions.githubusercontent.com"
	GoogleIssuer        = "https://accounts.google.com"
)

// Identity is what a Fulcio certificate binds a key to: a subject (an email
// address or a URI in the subject alternative name) and the Fulcio
// extensions, whose Issuer is the OIDC issuer.
type Identity struct {
	Email      string // SAN email (OIDC email identities)
	URI        string // SAN URI (workflow identities)
	Extensions certificate.Extensions
}

// Subject returns the SAN value the identity is matched by.
func (id Identity) Subject() string {
	if id.Email != "" {
		return id.Email
	}
	return id.URI
}

// Email returns an email identity from issuer, as Fulcio issues for a
// Google or other OIDC account: only the issuer extensions are set.
func Email(addr, issuer string) Identity {
	return Identity{Email: addr, Extensions: certificate.Extensions{Issuer: issuer}}
}

// GitHubWorkflow describes one GitHub Actions run; Identity turns it into
// the certificate identity Fulcio issues for its OIDC token.
type GitHubWorkflow struct {
	Repository   string // "owner/repo"
	Workflow     string // path, e.g. ".github/workflows/release.yml"
	Name         string // workflow name, e.g. "Release"
	Ref          string // e.g. "refs/tags/v1.0.0"
	SHA          string // commit
	Trigger      string // event name, e.g. "push"
	RepositoryID string // numeric ids as GitHub sends them
	OwnerID      string
	RunID        string
	Visibility   string // "public" or "private"
	// JobWorkflow, when set, is the "owner/repo/path@ref" of a reusable
	// workflow that did the signing (its job_workflow_ref claim).
	JobWorkflow    string
	JobWorkflowSHA string
}

// Identity returns the identity Fulcio v1.8 gives a GitHub Actions token of
// w: the SAN URI is the job workflow ref, and the extensions carry both the
// deprecated 1.2–1.6 claims and the 1.8–1.22 ones.
func (w GitHubWorkflow) Identity() Identity {
	const gh = "https://github.com/"
	d := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	wf := d(w.Workflow, ".github/workflows/release.yml")
	ref := d(w.Ref, "refs/heads/main")
	sha := d(w.SHA, strings.Repeat("a", 40))
	trigger := d(w.Trigger, "push")
	job := d(w.JobWorkflow, w.Repository+"/"+wf+"@"+ref)
	jobSHA := d(w.JobWorkflowSHA, sha)
	owner, _, _ := strings.Cut(w.Repository, "/")
	run := d(w.RunID, "1")
	return Identity{
		URI: gh + job,
		Extensions: certificate.Extensions{
			Issuer:                              GitHubActionsIssuer,
			GithubWorkflowTrigger:               trigger,
			GithubWorkflowSHA:                   sha,
			GithubWorkflowName:                  d(w.Name, "Release"),
			GithubWorkflowRepository:            w.Repository,
			GithubWorkflowRef:                   ref,
			BuildSignerURI:                      gh + job,
			BuildSignerDigest:                   jobSHA,
			RunnerEnvironment:                   "github-hosted",
			SourceRepositoryURI:                 gh + w.Repository,
			SourceRepositoryDigest:              sha,
			SourceRepositoryRef:                 ref,
			SourceRepositoryIdentifier:          d(w.RepositoryID, "1000"),
			SourceRepositoryOwnerURI:            gh + owner,
			SourceRepositoryOwnerIdentifier:     d(w.OwnerID, "2000"),
			BuildConfigURI:                      gh + w.Repository + "/" + wf + "@" + ref,
			BuildConfigDigest:                   sha,
			BuildTrigger:                        trigger,
			RunInvocationURI:                    gh + w.Repository + "/actions/runs/" + run + "/attempts/1",
			SourceRepositoryVisibilityAtSigning: d(w.Visibility, "public"),
		},
	}
}

// OID arcs of Fulcio's certificate extensions (1.3.6.1.4.1.57264.1.N).
func fulcioOID(n int) asn1.ObjectIdentifier {
	return asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, n}
}

// render encodes e as Fulcio v1.8.4 does (pkg/certificate/extensions.go):
// the deprecated 1.1–1.6 extensions hold raw string bytes, 1.8 onwards hold
// DER UTF8String values.
func render(e certificate.Extensions) ([]pkix.Extension, error) {
	var out []pkix.Extension
	raw := func(n int, v string) {
		if v != "" {
			out = append(out, pkix.Extension{Id: fulcioOID(n), Value: []byte(v)})
		}
	}
	raw(1, e.Issuer)
	raw(2, e.GithubWorkflowTrigger)
	raw(3, e.GithubWorkflowSHA)
	raw(4, e.GithubWorkflowName)
	raw(5, e.GithubWorkflowRepository)
	raw(6, e.GithubWorkflowRef)
	for _, f := range []struct {
		n int
		v string
	}{
		{8, e.Issuer}, {9, e.BuildSignerURI}, {10, e.BuildSignerDigest}, {11, e.RunnerEnvironment},
		{12, e.SourceRepositoryURI}, {13, e.SourceRepositoryDigest}, {14, e.SourceRepositoryRef},
		{15, e.SourceRepositoryIdentifier}, {16, e.SourceRepositoryOwnerURI}, {17, e.SourceRepositoryOwnerIdentifier},
		{18, e.BuildConfigURI}, {19, e.BuildConfigDigest}, {20, e.BuildTrigger}, {21, e.RunInvocationURI},
		{22, e.SourceRepositoryVisibilityAtSigning},
	} {
		if f.v == "" {
			continue
		}
		val, err := asn1.MarshalWithParams(f.v, "utf8")
		if err != nil {
			return nil, err
		}
		out = append(out, pkix.Extension{Id: fulcioOID(f.n), Value: val})
	}
	return out, nil
}
