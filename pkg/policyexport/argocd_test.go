package policyexport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/policyexport"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/verify"
)

// pluginConfig is Argo CD's cmpserver/plugin.PluginConfig
// (github.com/argoproj/argo-cd/v3@v3.5.7 cmpserver/plugin/config.go), the
// shape the CMP sidecar reads plugin.yaml into.
type pluginConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version  string  `json:"version"`
		Init     command `json:"init,omitempty"`
		Generate command `json:"generate"`
		Discover struct {
			FileName string         `json:"fileName"`
			Find     map[string]any `json:"find"`
		} `json:"discover"`
		Parameters       map[string]any `json:"parameters"`
		PreserveFileMode bool           `json:"preserveFileMode,omitempty"`
		ProvideGitCreds  bool           `json:"provideGitCreds,omitempty"`
	} `json:"spec"`
}

type command struct {
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
}

// TestArgoCDPlugin: plugin.yaml decodes strictly into Argo CD's shape and
// passes its ValidatePluginConfig; the ConfigMap's policy is self-contained
// (it loads with nothing but the ConfigMap's files) and decides as the
// original does (the same digest).
func TestArgoCDPlugin(t *testing.T) {
	for _, name := range []string{"keyless.yaml", "strict.yaml", "images-keyless.yaml"} {
		t.Run(name, func(t *testing.T) {
			p, o := load(t, name)
			o.For, o.Plugin, o.Image = "argocd", "addonpack-v1", "ghcr.io/addonpack/addonpack:v1.2.3"
			res, err := policyexport.Export(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range res.Files {
				files[f.Name] = f.Data
			}
			var pc pluginConfig
			if err := yaml.UnmarshalStrict(files["plugin.yaml"], &pc); err != nil {
				t.Fatalf("plugin.yaml: %v", err)
			}
			if pc.Kind != "ConfigManagementPlugin" || pc.APIVersion != "argoproj.io/v1alpha1" || pc.Metadata.Name != "addonpack-v1" || len(pc.Spec.Generate.Command) == 0 {
				t.Fatalf("plugin.yaml fails Argo CD's ValidatePluginConfig: %+v", pc)
			}
			if script := strings.Join(pc.Spec.Generate.Args, " "); !strings.Contains(script, "--policy "+policyexport.PolicyDir+"/policy.yaml") {
				t.Errorf("generate does not render under the policy: %s", script)
			}
			var cm struct {
				Data map[string]string `json:"data"`
			}
			if err := yaml.Unmarshal(files["addonpack-cmp.yaml"], &cm); err != nil {
				t.Fatal(err)
			}
			if cm.Data["plugin.yaml"] != string(files["plugin.yaml"]) {
				t.Error("the ConfigMap's plugin.yaml is not plugin.yaml")
			}
			dir := t.TempDir()
			for k, v := range cm.Data {
				if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			q, err := verify.LoadPolicy(context.Background(), filepath.Join(dir, "policy.yaml"), func(string) string { return "" })
			if err != nil {
				t.Fatalf("the carried policy does not load on its own: %v", err)
			}
			if q.Digest() != p.Digest() {
				t.Errorf("the carried policy decides otherwise: digest %s, want %s", q.Digest(), p.Digest())
			}
			var patch map[string]any
			if err := yaml.Unmarshal(files["repo-server-patch.yaml"], &patch); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(patch)
			for _, want := range []string{`"name":"argocd-repo-server"`, `"image":"ghcr.io/addonpack/addonpack:v1.2.3"`, `/var/run/argocd/argocd-cmp-server`, `"subPath":"plugin.yaml"`} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("repo-server patch lacks %s: %s", want, b)
				}
			}
		})
	}
}

// TestPluginApplicationMatchesCRD: the Application render --for argocd
// --plugin writes (deliver.ArgoCD with a plugin) matches Argo CD's
// Application CRD, names the plugin and hands it the reference by digest
// under the parameter names the plugin's command reads.
func TestPluginApplicationMatchesCRD(t *testing.T) {
	sch := crdSchemas(t, "argoproj.io_applications.yaml.gz")["argoproj.io/v1alpha1"]
	r := ref(t, "registry.example.com/addons/hello@sha256:"+strings.Repeat("cd", 32))
	a := &spec.Addon{}
	a.Metadata.Name, a.Spec.Version = "hello", "0.1.0"
	out, err := deliver.ArgoCD(deliver.GitOps{Ref: *r, Addon: a, Plugin: "addonpack", Values: []byte("spec:\n  replicas: 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	var app map[string]any
	if err := yaml.Unmarshal(out, &app); err != nil {
		t.Fatal(err)
	}
	if err := validate(sch, app); err != nil {
		t.Fatalf("the Application does not match Argo CD's CRD: %v\n%s", err, out)
	}
	plugin := app["spec"].(map[string]any)["source"].(map[string]any)["plugin"].(map[string]any)
	if plugin["envv"] = true; validate(sch, app) == nil {
		t.Error("the Application schema accepts an unknown field of source.plugin")
	}
	for _, want := range []string{"name: addonpack", "name: " + policyexport.RefEnv, "value: registry.example.com/addons/hello@sha256:cdcd", "name: " + policyexport.ValuesEnv} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the Application lacks %q:\n%s", want, out)
		}
	}
	for _, env := range []string{policyexport.RefEnv, policyexport.ValuesEnv} {
		if !strings.Contains(generateArgs(t), "ARGOCD_ENV_"+env) {
			t.Errorf("the plugin's command does not read ARGOCD_ENV_%s", env)
		}
	}
}

func generateArgs(t *testing.T) string {
	t.Helper()
	p, o := load(t, "keys.yaml")
	o.For = "argocd"
	res, err := policyexport.Export(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	var pc pluginConfig
	if err := yaml.UnmarshalStrict(res.Files[0].Data, &pc); err != nil {
		t.Fatal(err)
	}
	return strings.Join(pc.Spec.Generate.Args, " ")
}
