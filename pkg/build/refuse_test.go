package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/scaffold"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// TestRefusals breaks a working scaffold in one way each and checks that
// Build refuses it with an error that names the culprit and, where there is
// one, matches the sentinel. Nothing may be pushed to the store.
func TestRefusals(t *testing.T) {
	write := func(rel, content string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	replace := func(rel, old, new string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), old) {
				t.Fatalf("%s does not contain %q", rel, old)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   []string // substrings of the error
		is     error
	}{
		{"missing addon.yaml", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "addon.yaml")) },
			[]string{"addon.yaml: missing"}, build.ErrSource},
		{"invalid addon.yaml", replace("addon.yaml", "version: 0.1.0", "version: v0.1"),
			[]string{"addon.yaml: spec.version: must be a strict semantic version"}, spec.ErrInvalid},
		{"unknown addon.yaml field", replace("addon.yaml", "license:", "licence:"),
			[]string{"addon.yaml: spec: additional properties 'licence' not allowed"}, spec.ErrInvalid},
		{"addon.yaml ignored", write(".addonpackignore", "addon.yaml\n"),
			[]string{"addon.yaml: excluded from the package by .addonpackignore"}, build.ErrSource},
		{"kustomize root without kustomization", replace("addon.yaml", "kustomize: .", "kustomize: config"),
			[]string{"addon.yaml: spec.kustomize: no kustomization.yaml in \"config\""}, spec.ErrInvalid},
		{"absolute kustomize path", replace("addon.yaml", "kustomize: .", "kustomize: /etc"),
			[]string{"addon.yaml: spec.kustomize"}, spec.ErrInvalid},
		{"dot-dot schema path", replace("addon.yaml", "schema: config/schema.yaml", "schema: ../schema.yaml"),
			[]string{"addon.yaml: spec.config.schema", "../schema.yaml"}, spec.ErrInvalid},
		{"schema file missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "config", "schema.yaml")) },
			[]string{"addon.yaml: spec.config.schema: \"config/schema.yaml\" is not a file in the package"}, spec.ErrInvalid},
		{"kustomization does not build", write("service.yaml", "apiVersion: v1\nkind: Service\nmetadata: [not, a, map]\n"),
			[]string{"kustomize build failed"}, build.ErrRender},
		{"kustomization names a missing file", replace("kustomization.yaml", "  - service.yaml", "  - services.yaml"),
			[]string{"kustomization.yaml", "resources[3]", "services.yaml"}, render.ErrMissingFile},
		{"remote base", replace("kustomization.yaml", "  - service.yaml", "  - github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6"),
			[]string{"kustomization.yaml: resources[3]", "github.com/kubernetes-sigs/kustomize"}, render.ErrRemoteResource},
		{"helm chart", write("kustomization.yaml", "resources: [service.yaml]\nhelmCharts:\n  - name: x\n    repo: https://charts.example.com\n"),
			[]string{"kustomization.yaml", "helmCharts"}, render.ErrHelm},
		{"schema does not compile", write("config/schema.yaml", "type: object\nproperties:\n  replicas: {type: integer, minimum: one}\n"),
			[]string{"config/schema.yaml"}, nil},
		{"schema with external ref", write("config/schema.yaml", "type: object\nproperties:\n  replicas: {$ref: 'https://example.com/int.json'}\n"),
			[]string{"config/schema.yaml", "https://example.com/int.json"}, schema.ErrExternalRef},
		{"defaults do not validate", replace("config/defaults.yaml", "replicas: 2", "replicas: 0"),
			[]string{"config/defaults.yaml: does not validate", "spec.replicas"}, schema.ErrInvalid},
		{"defaults of another kind", replace("config/defaults.yaml", "kind: HelloConfig", "kind: OtherConfig"),
			[]string{"config/defaults.yaml", "OtherConfig", "HelloConfig"}, nil},
		{"component switch not boolean", func(t *testing.T, dir string) {
			replace("addon.yaml", "    defaults: config/defaults.yaml", "    defaults: config/defaults.yaml\n    components:\n      - path: extra\n        when: message")(t, dir)
			write("extra/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")(t, dir)
		}, []string{"addon.yaml: spec.config.components[0].when", "config/schema.yaml has type string, want boolean"}, spec.ErrInvalid},
		{"component switch names no property", func(t *testing.T, dir string) {
			replace("addon.yaml", "    defaults: config/defaults.yaml", "    defaults: config/defaults.yaml\n    components:\n      - path: extra\n        when: extra.enabled")(t, dir)
			write("extra/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n")(t, dir)
		}, []string{"addon.yaml: spec.config.components[0].when", "has no property \"extra\""}, spec.ErrInvalid},
		{"component disabled by default refers to a remote base", func(t *testing.T, dir string) {
			replace("addon.yaml", "    defaults: config/defaults.yaml", "    defaults: config/defaults.yaml\n    components:\n      - path: extra\n        when: extra")(t, dir)
			replace("config/schema.yaml", "properties:", "properties:\n  extra: {type: boolean, default: false}")(t, dir)
			write("extra/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - https://example.com/evil.yaml\n")(t, dir)
		}, []string{"extra/kustomization.yaml", "https://example.com/evil.yaml"}, render.ErrRemoteResource},
		{"defaults not listed: no standalone build", replace("kustomization.yaml", "  - config/defaults.yaml\n", ""),
			[]string{"does not build standalone", "kubectl apply -k, Flux and Argo CD", "config/defaults.yaml"}, build.ErrRender},
		{"defaults outside the kustomization root", func(t *testing.T, dir string) {
			for _, f := range []string{"kustomization.yaml", "namespace.yaml", "serviceaccount.yaml", "deployment.yaml", "service.yaml"} {
				os.MkdirAll(filepath.Join(dir, "deploy"), 0o755)
				if err := os.Rename(filepath.Join(dir, f), filepath.Join(dir, "deploy", f)); err != nil {
					t.Fatal(err)
				}
			}
			replace("addon.yaml", "kustomize: .", "kustomize: deploy")(t, dir)
			replace("deploy/kustomization.yaml", "  - config/defaults.yaml\n", "")(t, dir)
		}, []string{"does not build standalone", "config/defaults.yaml"}, build.ErrRender},
		{"listed defaults not marked local-config", replace("config/defaults.yaml", "    config.kubernetes.io/local-config: \"true\"\n", ""),
			[]string{"config/defaults.yaml: metadata.annotations", "local-config"}, spec.ErrInvalid},
		{"declared images miss a rendered one", replace("addon.yaml", "  kubernetes:", "  images:\n    - docker.io/hashicorp/http-echo:0.2.3\n  kubernetes:"),
			[]string{"addon.yaml: spec.images", "docker.io/hashicorp/http-echo:1.0.0", "not declared"}, spec.ErrInvalid},
		{"symlink leaving the package", func(t *testing.T, dir string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.yaml")); err != nil {
				t.Fatal(err)
			}
		}, []string{"passwd.yaml", "leaves the package"}, archive.ErrUnsafePath},
		{"special file", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"pipe"}, archive.ErrEntryType},
		{"file over the size limit", write("big.bin", strings.Repeat("x", 2000)),
			[]string{"big.bin"}, archive.ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "addon")
			if _, err := scaffold.Create(dir, scaffold.Options{Name: "hello"}); err != nil {
				t.Fatal(err)
			}
			tt.break_(t, dir)
			limits := archive.DefaultLimits()
			limits.MaxFileSize = 1500
			store := memory.New()
			_, err := build.Build(context.Background(), dir, store, build.Options{Limits: &limits})
			if err == nil {
				t.Fatal("Build accepted the broken source")
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not name %q:\n%v", want, err)
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error does not match %v:\n%v", tt.is, err)
			}
			if _, err := store.Resolve(context.Background(), "anything"); err == nil {
				t.Error("a refused build tagged something in the store")
			}
		})
	}
}

// TestReadmeSourceLayout: docs/publish.md's source-format layout — the
// kustomization under deploy/, the schema under config/, the defaults inside
// the kustomization root — builds, standalone included.
func TestReadmeSourceLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "addon")
	if _, err := scaffold.Create(dir, scaffold.Options{Name: "hello"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "deploy"), 0o755)
	for from, to := range map[string]string{
		"kustomization.yaml": "deploy/kustomization.yaml", "namespace.yaml": "deploy/namespace.yaml",
		"serviceaccount.yaml": "deploy/serviceaccount.yaml", "deployment.yaml": "deploy/deployment.yaml",
		"service.yaml": "deploy/service.yaml", "config/defaults.yaml": "deploy/defaults.yaml",
	} {
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(rel, old, new string) {
		p := filepath.Join(dir, rel)
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s lacks %q", rel, old)
		}
		os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
	}
	edit("addon.yaml", "kustomize: .", "kustomize: deploy")
	edit("addon.yaml", "defaults: config/defaults.yaml", "defaults: deploy/defaults.yaml")
	edit("deploy/kustomization.yaml", "  - config/defaults.yaml", "  - defaults.yaml")
	if _, err := build.Build(context.Background(), dir, memory.New(), build.Options{}); err != nil {
		t.Fatalf("docs/publish.md's layout does not build: %v", err)
	}
}
