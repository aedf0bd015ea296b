package mirror

import (
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/semver"
)

// TestSelectTags: the range's matches (the npm pre-release rule), the
// highest Limit precedences, equal precedences taken whole.
func TestSelectTags(t *testing.T) {
	tags := []string{"0.1.0", "0.2.0", "0.3.0-rc.1", "0.3.0", "1.0.0", "1.5.0_aws", "1.5.0_gcp", "1.6.0", "v1.7.0", "latest", "sha256-ab.sig"}
	for _, tt := range []struct {
		versions string
		limit    int
		want     string
	}{
		{"*", 0, "0.1.0 0.2.0 0.3.0 1.0.0 1.5.0_aws 1.5.0_gcp 1.6.0"},
		{"0.x", 2, "0.2.0 0.3.0"},
		{">=0.3.0-rc.0, <1.0.0", 0, "0.3.0-rc.1 0.3.0"},
		{"1.x", 1, "1.6.0"},
		{"1.x", 2, "1.5.0_aws 1.5.0_gcp 1.6.0"}, // the tie counts once, taken whole
		{"1.x", 3, "1.0.0 1.5.0_aws 1.5.0_gcp 1.6.0"},
		{"1.x", 1000, "1.0.0 1.5.0_aws 1.5.0_gcp 1.6.0"},
		{">=2.0.0", 3, ""},
	} {
		r, err := semver.ParseRange(tt.versions)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(selectTags(tags, Source{Versions: r, Limit: tt.limit}), " ")
		if got != tt.want {
			t.Errorf("%q limit %d: %q, want %q", tt.versions, tt.limit, got, tt.want)
		}
	}
}
