package verify

import "testing"

func TestPredicateMatches(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"sbom", "https://cyclonedx.org/bom", true},
		{"sbom", "https://spdx.dev/Document", true},
		{"sbom", ProvenancePredicateType, false},
		{"cyclonedx", "https://cyclonedx.org/bom", true},
		{"cyclonedx", "https://spdx.dev/Document", false},
		{"spdxjson", "https://spdx.dev/Document", true},
		{"slsaprovenance1", ProvenancePredicateType, true},
		{"https://example.com/test-report", "https://example.com/test-report", true},
		{"https://example.com/test-report", "https://example.com/other", false},
		{"SBOM", "https://cyclonedx.org/bom", false},
	} {
		if got := predicateMatches(tc.want, tc.got); got != tc.ok {
			t.Errorf("predicateMatches(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
	if d := describePredicate("sbom"); d != "sbom (https://cyclonedx.org/bom or https://spdx.dev/Document)" {
		t.Errorf("describePredicate = %q", d)
	}
}
