package testregistry

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestConformanceScript runs scripts/conformance.sh (official OCI
// distribution-spec suite, every API and data set, memory and filesystem
// storage) against the stand-in server and requires zero failures.
func TestConformanceScript(t *testing.T) {
	cmd := exec.Command("bash", "../scripts/conformance.sh")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance.sh: %v\n%s", err, out)
	}
	text := string(out)
	for _, label := range []string{"memory", "filesystem"} {
		if !strings.Contains(text, "== conformance: "+label+" storage (suite exit 0)") {
			t.Errorf("no passing %s run in output:\n%s", label, text)
		}
	}
	totals := regexp.MustCompile(`(?m)^\s+TOTAL\s+(\d+)\s+(\d+)\s+(\d+)$`).FindAllStringSubmatch(text, -1)
	if len(totals) != 2 {
		t.Fatalf("want 2 TOTAL lines, got %d:\n%s", len(totals), text)
	}
	for _, m := range totals {
		if m[2] != "0" || m[3] != "0" || m[1] == "0" {
			t.Errorf("totals passed=%s failed=%s skipped=%s, want all passed", m[1], m[2], m[3])
		}
	}
	t.Logf("conformance totals: %v", totals)
}

func TestConformanceScriptRejectsBadBinary(t *testing.T) {
	cmd := exec.Command("bash", "../scripts/conformance.sh", "/nonexistent/addonpack")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not executable") {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
}
