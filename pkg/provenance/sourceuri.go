package provenance

import (
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// defaultPorts are left out of a normalised source URI: ssh://host:22/x and
// ssh://host/x are one repository.
var defaultPorts = map[string]string{"https": "443", "http": "80", "ssh": "22", "git": "9418"}

// SourceURI normalises a git remote URL into the resolvedDependencies URI of
// specs/provenance.md: "git+" SCHEME "://" HOST[:PORT] "/" PATH, scheme and
// host lower case, no user or password, no default port, no trailing "/" or
// ".git". The scp-like form "[user@]host:path" is ssh; an absolute local path
// is a file URL ("git+file:///srv/git/repo"). A value that is none of these
// (a relative path) is returned as it is, with "git+" when it has a scheme.
func SourceURI(remote string) string {
	scheme, host, p, ok := splitRepo(remote)
	switch {
	case remote == "":
		return ""
	case !ok:
		return remote
	case scheme == "file":
		return "git+file://" + p
	}
	return "git+" + scheme + "://" + host + "/" + p
}

// RepositoryKey returns what identifies a repository whatever the transport
// it was cloned over: "HOST[:PORT]/PATH" for network URLs (https, http, ssh,
// git, scp-like; with or without "git+", user, default port, trailing "/" or
// ".git"), "file://PATH" for local ones. Two URLs name the same repository
// exactly when their keys are equal; the path keeps its case. A value that
// is no URL is its own key.
func RepositoryKey(u string) string {
	scheme, host, p, ok := splitRepo(u)
	switch {
	case !ok:
		return u
	case scheme == "file":
		return "file://" + p
	}
	return host + "/" + p
}

// splitRepo parses the forms SourceURI accepts into a lower-case scheme, a
// canonical host[:port] and a path without leading or trailing "/" or
// ".git" (for file URLs: the absolute, cleaned path).
func splitRepo(raw string) (scheme, host, p string, ok bool) {
	scheme, host, p, ok = splitRepoParts(raw)
	if !ok || strings.ContainsFunc(p, unsafeRune) || (scheme != "file" && !hostPattern.MatchString(host)) {
		return "", "", "", false
	}
	return scheme, host, p, true
}

// hostPattern is a DNS name or an IP literal, with an optional port.
var hostPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9._-]*[a-z0-9])?|\[[0-9a-f:.]+\])(:[0-9]+)?$`)

// unsafeRune reports characters that would make the normalised URI parse
// differently (or not at all): such a value is kept as it is.
func unsafeRune(r rune) bool {
	return r <= ' ' || r == 0x7f || strings.ContainsRune("#?%\\@", r)
}

func splitRepoParts(raw string) (scheme, host, p string, ok bool) {
	s := strings.TrimPrefix(raw, "git+")
	switch {
	case strings.HasPrefix(s, "/"):
		return "file", "", path.Clean(s), true
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" {
			return "", "", "", false
		}
		scheme = strings.ToLower(u.Scheme)
		if scheme == "file" {
			if u.Path == "" {
				return "", "", "", false
			}
			return "file", "", path.Clean(u.Path), true
		}
		if _, known := defaultPorts[scheme]; !known || u.Hostname() == "" {
			return "", "", "", false
		}
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			// An IPv6 literal, which must be one: "ssh://::0" has the
			// hostname ":", which bracketed would not parse again.
			if _, err := netip.ParseAddr(host); err != nil {
				return "", "", "", false
			}
			host = "[" + host + "]"
		}
		if port := u.Port(); port != "" && port != defaultPorts[scheme] {
			host += ":" + port
		}
		return scheme, host, trimRepoPath(u.Path), true
	}
	// scp-like: [user@]host:path, with no "/" before the ":".
	hostPart, p, found := strings.Cut(s, ":")
	if !found || strings.Contains(hostPart, "/") || hostPart == "" || p == "" {
		return "", "", "", false
	}
	if at := strings.LastIndex(hostPart, "@"); at >= 0 {
		hostPart = hostPart[at+1:]
	}
	return "ssh", strings.ToLower(hostPart), trimRepoPath(p), true
}

func trimRepoPath(p string) string {
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".git")
	return strings.TrimSuffix(p, "/")
}
