package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ---- misc ----

func repoOf(ref string) string {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

func uptime() string {
	out, err := exec.Command("uptime").Output()
	if err != nil {
		return loadavg()
	}
	return strings.TrimSpace(string(out))
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[addonbench %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
