package render

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOverlayBuildsLikeBuild writes the overlay over a copy of the package
// and checks that building the result with no config gives Build's output.
func TestOverlayBuildsLikeBuild(t *testing.T) {
	pkg := os.DirFS("testdata/coredns")
	config, err := os.ReadFile("testdata/config/coredns-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Files: pkg, Root: ".", Config: config, Components: []string{"components/nodelocal"}}
	want, err := Build(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := Overlay(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(overlay) != 2 || overlay["kustomization.yaml"] == nil {
		t.Fatalf("overlay files: %v", overlayKeys(overlay))
	}
	merged := mapFSOf(t, "testdata/coredns", "")
	for p, data := range overlay {
		merged[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	got, err := Build(context.Background(), Input{Files: merged, Root: "."})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("the overlaid package renders differently:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(string(overlay["kustomization.yaml"]), "components/nodelocal") {
		t.Fatalf("component not added:\n%s", overlay["kustomization.yaml"])
	}
}

func overlayKeys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestOverlayRefusesPathsOutside: the written directory must build
// standalone and root-only, so every kustomization of the package — not
// only those the root reaches — and every file a kustomization loads must
// stay inside the package.
func TestOverlayRefusesPathsOutside(t *testing.T) {
	root := "resources: [cm.yaml]\n"
	tests := []struct {
		name     string
		files    fstest.MapFS
		want     string
		buildToo bool // Build refuses it as well (the root reaches it)
	}{
		{"unreachable kustomization, absolute resource", files("kustomization.yaml", root, "cm.yaml", cm, "other/kustomization.yaml", "resources: [/etc/passwd]\n"),
			`other/kustomization.yaml: resources[0]: "/etc/passwd": not a path inside the package: absolute path`, false},
		{"unreachable kustomization, leaving the package", files("kustomization.yaml", root, "cm.yaml", cm, "a/b/kustomization.yaml", "resources: [../../../host]\n"),
			`a/b/kustomization.yaml: resources[0]: "../../../host": not a path inside the package: leaves the package root`, false},
		{"unreachable kustomization, git URL", files("kustomization.yaml", root, "cm.yaml", cm, "x/kustomization.yaml", "resources: [github.com/evil/repo]\n"),
			`x/kustomization.yaml: resources[0]: "github.com/evil/repo"`, false},
		{"unreachable component, host generator file", files("kustomization.yaml", root, "cm.yaml", cm, "comp/kustomization.yaml", "kind: Component\napiVersion: kustomize.config.k8s.io/v1alpha1\nconfigMapGenerator:\n- name: g\n  files: [/etc/shadow]\n"),
			`comp/kustomization.yaml: configMapGenerator[0].files[0]: "/etc/shadow": not a path inside the package: absolute path`, false},
		{"generator file source with a key", files("kustomization.yaml", root+"configMapGenerator:\n- name: g\n  files: [k=../../etc/passwd]\n", "cm.yaml", cm),
			`configMapGenerator[0].files[0]: "k=../../etc/passwd": not a path inside the package: leaves the package root`, true},
		{"generator envs", files("kustomization.yaml", root+"secretGenerator:\n- name: g\n  envs: [/proc/self/environ]\n", "cm.yaml", cm),
			`secretGenerator[0].envs[0]: "/proc/self/environ"`, true},
		{"patch path", files("kustomization.yaml", root+"patches:\n- path: /etc/passwd\n", "cm.yaml", cm), `patches[0].path: "/etc/passwd"`, true},
		{"crds", files("kustomization.yaml", root+"crds: [../crd.yaml]\n", "cm.yaml", cm), `crds[0]: "../crd.yaml": not a path inside the package: leaves the package root`, true},
		{"openapi path", files("kustomization.yaml", root+"openapi:\n  path: /etc/schema.json\n", "cm.yaml", cm), `openapi.path: "/etc/schema.json"`, true},
		{"replacements path", files("kustomization.yaml", root+"replacements:\n- path: /etc/r.yaml\n", "cm.yaml", cm), `replacements[0].path: "/etc/r.yaml"`, true},
		{"configurations", files("kustomization.yaml", root+"configurations: [/etc/c.yaml]\n", "cm.yaml", cm), `configurations[0]: "/etc/c.yaml"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Files: tt.files, Root: "."}
			_, err := Overlay(context.Background(), in)
			var refused *RefusedError
			if !errors.As(err, &refused) || !errors.Is(err, ErrRemoteResource) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Overlay: %v, want a *RefusedError containing %q", err, tt.want)
			}
			_, err = Build(context.Background(), in)
			if tt.buildToo != errors.Is(err, ErrRemoteResource) {
				t.Errorf("Build: %v (want refused: %v)", err, tt.buildToo)
			}
		})
	}
}
