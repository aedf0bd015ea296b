package render

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestBuildRecoversKustomizePanic(t *testing.T) {
	// Kustomize v0.21.2 panics in makeResIds when a namespace holds a comma
	// and a name prefix is set (found by FuzzBuild).
	m := files(
		"kustomization.yaml", "resources:\n- base\nnamePrefix: p-\nnamespace: a,b\n",
		"base/kustomization.yaml", "resources:\n- cm.yaml\n",
		"base/cm.yaml", cm,
	)
	out, err := buildFast(t, Input{Files: m, Root: "."})
	if !errors.Is(err, errKustomizePanic) {
		t.Fatalf("Build = %q, %v; want a recovered kustomize panic", out, err)
	}
	// The mutex was released and kustomize still works.
	if _, err := buildFast(t, Input{Files: os.DirFS(corednsDir), Root: ".", Config: readConfig(t)}); err != nil {
		t.Fatal(err)
	}
}

// panicFS panics when opened, standing in for anything that panics inside Build.
type panicFS struct{}

func (panicFS) Open(string) (fs.File, error) { panic("boom") }

func TestBuildInputErrors(t *testing.T) {
	cfg := readConfig(t)
	coredns := mapFSOf(t, corednsDir, "")
	symlinked := mapFSOf(t, corednsDir, "")
	symlinked["link.yaml"] = &fstest.MapFile{Data: []byte("service.yaml"), Mode: fs.ModeSymlink}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		in   Input
		want string
		is   error
	}{
		{"cancelled context", cancelled, Input{Files: coredns, Config: cfg}, "context canceled", context.Canceled},
		{"nil files", nil, Input{Root: "."}, "Input.Files is nil", nil},
		{"root escapes", nil, Input{Files: coredns, Root: "../x"}, `invalid root "../x"`, nil},
		{"absolute root", nil, Input{Files: coredns, Root: "/etc"}, `invalid root "/etc"`, nil},
		{"root missing", nil, Input{Files: coredns, Root: "nope"}, "root nope/ is not a directory", nil},
		{"no kustomization", nil, Input{Files: coredns, Root: "components"}, "no kustomization file", nil},
		{"symlink", nil, Input{Files: symlinked, Config: cfg}, "link.yaml: symlink", nil},
		{"two config documents", nil, Input{Files: coredns, Config: append(append([]byte{}, cfg...), "---\n"+string(cfg)...)}, "want exactly one YAML document, got 2", nil},
		{"config without name", nil, Input{Files: coredns, Config: []byte("apiVersion: v1\nkind: X\nspec: {}\n")}, "metadata.name are required", nil},
		{"component missing", nil, Input{Files: coredns, Config: cfg, Components: []string{"components/nope"}}, `Input.Components[0]: "components/nope": no such file or directory in the package`, ErrMissingFile},
		{"component remote", nil, Input{Files: coredns, Config: cfg, Components: []string{"components/nodelocal", "github.com/x/y//c"}}, `Input.Components[1]: "github.com/x/y//c"`, ErrRemoteResource},
		{"panic recovered", nil, Input{Files: panicFS{}}, "panic while rendering: boom", errPanic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			out, err := Build(ctx, tt.in)
			if err == nil {
				t.Fatalf("Build succeeded:\n%s", out)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if out != nil {
				t.Errorf("output %q with an error", out)
			}
		})
	}
}

func TestBuildRefusesSymlinkOnDisk(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n- cm.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "cm.yaml")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	_, err := Build(context.Background(), Input{Files: os.DirFS(dir), Root: "."})
	if err == nil || !strings.Contains(err.Error(), "cm.yaml") || !strings.Contains(err.Error(), "symlinks and special files are not allowed") {
		t.Errorf("error = %v, want a refused symlink cm.yaml", err)
	}
}
