//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// jobScriptTimeout bounds one run of a Job's script: the stack Job waits up
// to 120 s per CRD and 300 s per rollout, which the stand-in makes quick.
const jobScriptTimeout = 10 * time.Minute

// runJobScript runs a Job container's script as the kubelet would, but
// outside a Pod: config's keys as files of the directory mapped for
// /etc/addonpack (the ConfigMap's mount), an empty directory for /work,
// the pinned kubectl and bin/addonpack first on PATH, KUBECONFIG instead of
// the in-cluster config, env added. It returns the combined output.
func (e *env) runJobScript(t *testing.T, script string, config map[string][]byte, env ...string) (string, error) {
	t.Helper()
	etc, work := filepath.Join(t.TempDir(), "etc"), filepath.Join(t.TempDir(), "work")
	for _, d := range []string{etc, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range config {
		if err := os.WriteFile(filepath.Join(etc, name), data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	mapped := strings.NewReplacer("/etc/addonpack/", etc+"/", "/work/", work+"/").Replace(script)
	ctx, cancel := context.WithTimeout(context.Background(), jobScriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-euc", mapped)
	cmd.Env = append(append(os.Environ(),
		"PATH="+filepath.Join(e.root, "bin", "cluster")+":"+filepath.Join(e.root, "bin")+":"+os.Getenv("PATH"),
		"KUBECONFIG="+e.kubeconfig, "HOME="+work, "TMPDIR="+t.TempDir()), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// jobScript is the shell script of the one Job in rendered.
func jobScript(t *testing.T, rendered string) string {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(rendered))
	for {
		var o struct {
			Kind string
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct{ Command, Args []string }
					}
				}
			}
		}
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("no Job in the kustomization: %v", err)
		}
		if o.Kind == "Job" {
			c := o.Spec.Template.Spec.Containers
			if len(c) != 1 || len(c[0].Args) != 1 || strings.Join(c[0].Command, " ") != "/bin/sh -euc" {
				t.Fatalf("the Job's container is not one /bin/sh -euc script: %+v", c)
			}
			return c[0].Args[0]
		}
	}
}

// configMapKey is data[key] of the ConfigMap name in rendered.
func configMapKey(t *testing.T, rendered, name, key string) string {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(rendered))
	for {
		var o struct {
			Kind     string
			Metadata struct{ Name string }
			Data     map[string]string
		}
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("no ConfigMap %s with %s: %v", name, key, err)
		}
		if o.Kind == "ConfigMap" && o.Metadata.Name == name && o.Data[key] != "" {
			return o.Data[key]
		}
	}
}
