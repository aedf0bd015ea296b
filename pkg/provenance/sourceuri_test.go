package provenance

import "testing"

func TestSourceURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/org/repo", "git+https://github.com/org/repo"},
		{"https://github.com/org/repo.git", "git+https://github.com/org/repo"},
		{"https://GitHub.com/org/repo/", "git+https://github.com/org/repo"},
		{"https://github.com:443/org/repo", "git+https://github.com/org/repo"},
		{"git@github.com:org/repo.git", "git+ssh://github.com/org/repo"},
		{"github.com:org/repo", "git+ssh://github.com/org/repo"},
		{"ssh://git@github.com/org/repo.git", "git+ssh://github.com/org/repo"},
		{"ssh://git@github.com:22/org/repo.git", "git+ssh://github.com/org/repo"},
		{"ssh://git@bitbucket.example:7999/proj/repo.git", "git+ssh://bitbucket.example:7999/proj/repo"},
		{"git+https://github.com/org/repo", "git+https://github.com/org/repo"},
		{"git://example.org/repo.git", "git+git://example.org/repo"},
		{"/srv/git/repo.git", "git+file:///srv/git/repo.git"},
		{"file:///srv/git/repo.git", "git+file:///srv/git/repo.git"},
		{"", ""},
		{"../relative", "../relative"},
	}
	for _, tt := range tests {
		if got := SourceURI(tt.in); got != tt.want {
			t.Errorf("SourceURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRepositoryKey: the same repository however it was cloned, and never
// another host or path.
func TestRepositoryKey(t *testing.T) {
	same := []string{
		"https://github.com/ORG/REPO", "https://github.com/ORG/REPO.git", "https://github.com/ORG/REPO/",
		"git+https://github.com/ORG/REPO", "git@github.com:ORG/REPO.git", "github.com:ORG/REPO",
		"ssh://git@github.com/ORG/REPO.git", "git+ssh://github.com/ORG/REPO", "http://GITHUB.COM/ORG/REPO",
		"ssh://git@github.com:22/ORG/REPO", "git://github.com/ORG/REPO.git",
	}
	for _, a := range same {
		if RepositoryKey(a) != "github.com/ORG/REPO" {
			t.Errorf("RepositoryKey(%q) = %q", a, RepositoryKey(a))
		}
	}
	for _, other := range []string{
		"https://github.com/ORG/REPO2", "https://github.com/ORG/REP", "https://github.com/ORG-evil/REPO",
		"https://gitlab.com/ORG/REPO", "git@github.com.evil.example:ORG/REPO", "https://github.com/ORG/REPO/sub",
		"https://github.com:8443/ORG/REPO", "/github.com/ORG/REPO", "file:///github.com/ORG/REPO",
		"https://evil@example.com/github.com/ORG/REPO", "https://github.com/org/repo",
	} {
		if RepositoryKey(other) == "github.com/ORG/REPO" {
			t.Errorf("RepositoryKey(%q) matches github.com/ORG/REPO", other)
		}
	}
}

func FuzzSourceURI(f *testing.F) {
	for _, s := range []string{"git@github.com:o/r.git", "https://u:p@h/x", "ssh://h:22/x", "/srv/x", "file:///x", "git+ssh://[::1]:2222/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u := SourceURI(s)
		// Normalising is idempotent, and keeps the repository.
		if SourceURI(u) != u {
			t.Fatalf("SourceURI(%q) = %q, but SourceURI of that = %q", s, u, SourceURI(u))
		}
		if RepositoryKey(u) != RepositoryKey(s) {
			t.Fatalf("RepositoryKey changed by normalising %q: %q vs %q", s, RepositoryKey(s), RepositoryKey(u))
		}
	})
}
