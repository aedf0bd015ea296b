package render

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

const (
	cm       = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n"
	execGen  = "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: x\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./plugins/inflate.sh\n"
	labelsTr = "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\nlabels:\n  team: dns\nfieldSpecs:\n- path: metadata/labels\n  create: true\n"
)

func TestBuildRefusals(t *testing.T) {
	// Nothing here may reach the network or run git (see TestMain); pre-build
	// refusals are asserted to be *RefusedError (kustomize never ran).
	tests := []struct {
		name    string
		files   fstest.MapFS
		root    string
		is      error  // sentinel, or nil where there is none
		refused bool   // refused before kustomize ran (*RefusedError)
		want    string // substring of the message (file, field, value)
	}{
		{
			name:    "git remote resource",
			files:   files("deploy/kustomization.yaml", "resources:\n- cm.yaml\n- github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6\n", "deploy/cm.yaml", cm),
			root:    "deploy",
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomize build deploy/: deploy/kustomization.yaml: resources[1]: "github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v1.0.6": not a path inside the package (remote resources are not allowed)`,
		},
		{
			name:    "https resource",
			files:   files("kustomization.yaml", "resources:\n- https://example.com/x.yaml\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: resources[0]: "https://example.com/x.yaml": not a path inside the package (remote resources are not allowed)`,
		},
		{
			name:    "scp-style git base",
			files:   files("kustomization.yaml", "bases:\n- git@github.com:org/repo.git//base\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: bases[0]: "git@github.com:org/repo.git//base"`,
		},
		{
			name:    "missing local path",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\n- deploymnet.yaml\n", "cm.yaml", cm),
			is:      ErrMissingFile,
			refused: true,
			want:    `kustomization.yaml: resources[1]: "deploymnet.yaml": no such file or directory in the package`,
		},
		{
			name:    "path escaping the package",
			files:   files("deploy/kustomization.yaml", "resources:\n- ../../outside\n"),
			root:    "deploy",
			is:      ErrRemoteResource,
			refused: true,
			want:    `deploy/kustomization.yaml: resources[0]: "../../outside": not a path inside the package: leaves the package root`,
		},
		{
			name:  "file outside root (load restrictor)",
			files: files("deploy/kustomization.yaml", "resources:\n- ../outside.yaml\n", "outside.yaml", cm),
			root:  "deploy",
			want:  "is not in or below '/deploy'",
		},
		{
			name:    "remote in a nested base",
			files:   files("overlay/kustomization.yaml", "resources:\n- ../base\n", "base/kustomization.yaml", "resources:\n- cm.yaml\ncomponents:\n- ssh://git@example.com/org/repo.git\n", "base/cm.yaml", cm),
			root:    "overlay",
			is:      ErrRemoteResource,
			refused: true,
			want:    `base/kustomization.yaml: components[0]: "ssh://git@example.com/org/repo.git"`,
		},
		{
			name:    "remote patch file",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\npatches:\n- path: https://example.com/patch.yaml\n", "cm.yaml", cm),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: patches[0].path: "https://example.com/patch.yaml"`,
		},
		{
			name:    "http URL without slashes (found by FuzzBuild)",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: HTTP:0\n", "cm.yaml", cm),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: transformers[0]: "HTTP:0": not a path inside the package: loaded by builtin PatchTransformer`,
		},
		{
			name:    "URL behind a YAML alias",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\ntransformers:\n- patch.yaml\n", "cm.yaml", cm, "patch.yaml", "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\n  annotations:\n    src: &u https://example.com/p.yaml\npath: *u\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: transformers[0]: "https://example.com/p.yaml": not a path inside the package: loaded by builtin PatchTransformer`,
		},
		{
			name:    "https resource without slashes",
			files:   files("kustomization.yaml", "resources:\n- https:example.com/x.yaml\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: resources[0]: "https:example.com/x.yaml": not a path inside the package (remote resources are not allowed)`,
		},
		{
			name:    "remote generator source",
			files:   files("kustomization.yaml", "configMapGenerator:\n- name: g\n  files:\n  - conf=http://example.com/c.conf\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: configMapGenerator[0].files[0]: "conf=http://example.com/c.conf"`,
		},
		{
			name:    "remote openapi path",
			files:   files("kustomization.yaml", "openapi:\n  path: https://example.com/schema.json\nresources:\n- cm.yaml\n", "cm.yaml", cm),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: openapi.path: "https://example.com/schema.json"`,
		},
		{
			name:    "helmCharts",
			files:   files("kustomization.yaml", "helmCharts:\n- name: minecraft\n  repo: https://itzg.github.io/minecraft-server-charts\n  version: 3.1.3\n"),
			is:      ErrHelm,
			refused: true,
			want:    `kustomization.yaml: helmCharts[0]: "minecraft": helm charts are not allowed`,
		},
		{
			name:    "helmGlobals",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\nhelmGlobals:\n  chartHome: charts\n", "cm.yaml", cm),
			is:      ErrHelm,
			refused: true,
			want:    `kustomization.yaml: helmGlobals: helm charts are not allowed`,
		},
		{
			name:    "helmChartInflationGenerator field",
			files:   files("kustomization.yaml", "helmChartInflationGenerator:\n- chartName: minecraft\n  chartRepoUrl: https://itzg.github.io/minecraft-server-charts\n"),
			is:      ErrHelm,
			refused: true,
			want:    `kustomization.yaml: helmChartInflationGenerator[0]: "minecraft"`,
		},
		{
			name:    "HelmChartInflationGenerator generator config",
			files:   files("kustomization.yaml", "generators:\n- helm.yaml\n", "helm.yaml", "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata:\n  name: h\nname: minecraft\n"),
			is:      ErrHelm,
			refused: true,
			want:    `kustomization.yaml: generators[0]: "helm.yaml": HelmChartInflationGenerator (helm charts are not allowed)`,
		},
		{
			name:    "exec plugin generator",
			files:   files("kustomization.yaml", "generators:\n- gen.yaml\n", "gen.yaml", execGen, "plugins/inflate.sh", "#!/bin/sh\necho pwned\n"),
			is:      ErrPlugin,
			refused: true,
			want:    `kustomization.yaml: generators[0]: "gen.yaml": generator "ChartInflator" (apiVersion "someteam.example.com/v1") is not a builtin plugin (plugins are not allowed)`,
		},
		{
			name:    "inline plugin transformer",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\ntransformers:\n- |\n  apiVersion: example.com/v1\n  kind: Starlarker\n  metadata:\n    name: s\n", "cm.yaml", cm),
			is:      ErrPlugin,
			refused: true,
			want:    `kustomization.yaml: transformers[0]: transformer "Starlarker" (apiVersion "example.com/v1") is not a builtin plugin`,
		},
		{
			name:  "plugin config produced by a kustomization (kustomize refuses it)",
			files: files("kustomization.yaml", "resources:\n- cm.yaml\ntransformers:\n- tr\n", "cm.yaml", cm, "tr/kustomization.yaml", "resources:\n- gen.yaml\n", "tr/gen.yaml", execGen),
			is:    ErrPlugin,
			want:  "external plugins disabled; unable to load external plugin 'ChartInflator'",
		},
		{
			name:    "builtin transformer loading a URL",
			files:   files("kustomization.yaml", "resources:\n- cm.yaml\ntransformers:\n- patch.yaml\n", "cm.yaml", cm, "patch.yaml", "apiVersion: builtin\nkind: PatchTransformer\nmetadata:\n  name: p\npath: https://example.com/p.yaml\ntarget:\n  kind: ConfigMap\n"),
			is:      ErrRemoteResource,
			refused: true,
			want:    `kustomization.yaml: transformers[0]: "https://example.com/p.yaml": not a path inside the package: loaded by builtin PatchTransformer`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := buildFast(t, Input{Files: tt.files, Root: tt.root})
			if err == nil {
				t.Fatalf("Build succeeded:\n%s", out)
			}
			t.Logf("%v", err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n  %v\nlacks:\n  %s", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			var re *RefusedError
			if got := errors.As(err, &re); got != tt.refused {
				t.Errorf("refused before building = %v, want %v (%v)", got, tt.refused, err)
			}
			if msg := err.Error(); strings.Contains(msg, "'git' program") || strings.Contains(msg, `Get "http`) {
				t.Errorf("kustomize reached for the network: %v", err)
			}
		})
	}
}

func TestBuildAllowsBuiltinPlugins(t *testing.T) {
	m := files(
		"deploy/kustomization.yaml", "resources:\n- ../base\ntransformers:\n- labels.yaml\n- |\n  apiVersion: builtin\n  kind: AnnotationsTransformer\n  metadata:\n    name: a\n  annotations:\n    docs: https://example.com/docs\n  fieldSpecs:\n  - path: metadata/annotations\n    create: true\n",
		"deploy/labels.yaml", labelsTr,
		"base/kustomization.yaml", "resources:\n- cm.yaml\n",
		"base/cm.yaml", cm,
	)
	out, err := buildFast(t, Input{Files: m, Root: "deploy"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"team: dns", "docs: https://example.com/docs", "name: cm"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestMissingFileIsNotRemote: a typo in resources names the missing file
// and does not speak of remote resources, which it is not.
func TestMissingFileIsNotRemote(t *testing.T) {
	fsys := files("kustomization.yaml", "resources:\n- deploymnet.yaml\n")
	_, err := Build(context.Background(), Input{Files: fsys, Root: "."})
	if !errors.Is(err, ErrMissingFile) || errors.Is(err, ErrRemoteResource) || strings.Contains(err.Error(), "remote") || !strings.Contains(err.Error(), `"deploymnet.yaml"`) {
		t.Fatalf("err = %v; want ErrMissingFile naming the file, without remote resources", err)
	}
}
