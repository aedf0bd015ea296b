package verify

import "strings"

// matchAny reports whether v matches one of patterns (MatchPattern); norm is
// applied to both sides first.
func matchAny(patterns []string, v string, norm func(string) string) bool {
	v = norm(v)
	for _, p := range patterns {
		if MatchPattern(norm(p), v) {
			return true
		}
	}
	return false
}

// MatchPattern is the one matcher of builder ids and source repositories
// (policy builderIds and sourceRepositories, --builder-id, --source-repo;
// specs/policy.md "Patterns"). Values are split into segments at "/"; a
// pattern matches segment by segment:
//
//   - "*" matches any run of characters within one segment, never a "/";
//   - "**" as the whole last segment matches one or more further segments;
//   - every other character matches itself.
//
// So "https://github.com/example/*" matches "https://github.com/example/addons"
// but neither "https://github.com/example-evil/addons" nor
// "https://github.com/example/addons/fork": a pattern never reaches past the
// segment it is written in. Matching a pattern of p and a value of v bytes
// takes O(p·v) time at worst.
func MatchPattern(pattern, v string) bool {
	ps := strings.Split(pattern, "/")
	vs := strings.Split(v, "/")
	if n := len(ps) - 1; n > 0 && ps[n] == "**" {
		ps = ps[:n]
		if len(vs) <= n {
			return false
		}
		vs = vs[:n]
	}
	if len(ps) != len(vs) {
		return false
	}
	for i := range ps {
		if !matchSegment(ps[i], vs[i]) {
			return false
		}
	}
	return true
}

// matchSegment matches one segment: "*" is any run of characters (the
// segment holds no "/"). Greedy with one backtrack point, as in path.Match
// without its other metacharacters: "?", "[" and "\" match themselves here,
// since builder ids are URLs that may hold them.
func matchSegment(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			mark++
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
