package commands

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	tests := []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"v1.2.3", vcs(), "v1.2.3"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"", vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "devel+0123456789ab-dirty"},
		{"", vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "devel+0123456789ab"},
		{"", vcs(), "(devel)"},
		{"", nil, "(devel)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.linked, tt.bi); got != tt.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tt.linked, tt.bi, got, tt.want)
		}
	}
}

// TestReleaseBuildsStampVersion: the Makefile and the Dockerfile stamp the
// variable buildVersion reads.
func TestReleaseBuildsStampVersion(t *testing.T) {
	for _, f := range []string{"../../../Makefile", "../../../Dockerfile"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), "-X github.com/addonpack/addonpack/cmd/addonpack/commands.version=") {
			t.Errorf("%s does not stamp commands.version", f)
		}
	}
}
