package examples_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/fakekube"
	"github.com/addonpack/addonpack/testregistry"
)

// jobRun lays out the Job's volumes locally as the kubelet would (ConfigMap
// keys as files, emptyDirs empty) and runs the container's command with its
// env, a fake kubectl first on PATH, KUBECONFIG naming a stand-in API server
// that answers access reviews by the Job's RBAC (internal/fakekube) and the
// mount paths mapped to the local directories — the only change to the script.
type jobRun struct {
	root, kubectlLog string
	code             int
	output           string
}

func runInstallJob(t *testing.T, objs []k8sObject, addonRef string, pubKey []byte) jobRun {
	t.Helper()
	return runJob(t, objs, map[string]string{"cosign.pub": string(pubKey)}, map[string]string{"ADDON_REF": addonRef}, nil)
}

// runJob runs the Job in objs with the user's edits: configData replaces
// ConfigMap keys, envEdits the container's env values. The fake kubectl
// appends each call's arguments as one line to kubectlLog/calls and copies
// the directory of each -k to kubectlLog/stage-N (N counting from 1), so the
// order and content of staged applies can be checked; applyOut[N-1] is what
// the Nth -k apply prints (the objects a real one would name).
func runJob(t *testing.T, objs []k8sObject, configData, envEdits map[string]string, applyOut []string) jobRun {
	t.Helper()
	jobs := find(objs, "Job")
	job, c := parseJob(t, jobs[0])
	r := jobRun{root: t.TempDir(), kubectlLog: t.TempDir()}
	for i, out := range applyOut {
		if err := os.WriteFile(filepath.Join(r.kubectlLog, fmt.Sprintf("out-%d", i+1)), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vols := map[string]int{}
	for i, v := range job.Template.Spec.Volumes {
		vols[v.Name] = i
	}
	var mountPaths []string
	local := func(p string) string { return filepath.Join(r.root, filepath.FromSlash(p)) }
	for _, m := range c.VolumeMounts {
		dir := local(m.MountPath)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mountPaths = append(mountPaths, m.MountPath)
		v := job.Template.Spec.Volumes[vols[m.Name]]
		if v.ConfigMap == nil {
			continue
		}
		for _, cm := range find(objs, "ConfigMap") {
			if cm.Metadata.Name != v.ConfigMap.Name {
				continue
			}
			for k, val := range cm.Data {
				if edit, ok := configData[k]; ok {
					val = edit // the user's edit: the publisher's key, the stack's lock
				}
				if err := os.WriteFile(filepath.Join(dir, k), []byte(val), 0o444); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// One pass, longest mount first, so a mapped path is never mapped again.
	sort.Slice(mountPaths, func(i, j int) bool { return len(mountPaths[i]) > len(mountPaths[j]) })
	quoted := make([]string, len(mountPaths))
	for i, m := range mountPaths {
		quoted[i] = regexp.QuoteMeta(m)
	}
	mountRE := regexp.MustCompile(`(^|[\s="'])(` + strings.Join(quoted, "|") + `)(/|\s|$|"|')`)
	mapPaths := func(s string) string {
		return mountRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := mountRE.FindStringSubmatch(m)
			return sub[1] + local(sub[2]) + sub[3]
		})
	}
	fake := filepath.Join(r.root, "fake-bin")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	writeExecutable(t, filepath.Join(fake, "kubectl"), fmt.Sprintf(`#!/bin/sh
log=%q
printf '%%s\n' "$@" > "$log/args"
printf '%%s\n' "$*" >> "$log/calls"
prev=
for a in "$@"; do
  if [ "$prev" = -f ]; then cp "$a" "$log/applied.yaml"; fi
  if [ "$prev" = -k ]; then
    n=$(ls "$log" | grep -c '^stage-' || true)
    cp -R "$a" "$log/stage-$((n+1))"
    if [ -f "$log/out-$((n+1))" ]; then cat "$log/out-$((n+1))"; exit 0; fi
  fi
  prev=$a
done
echo "fake kubectl: applied"
`, r.kubectlLog))
	binDir := filepath.Dir(addonpackBin)
	// addonpack preflight asks a stand-in API server whose access reviews
	// answer as the Job's RBAC would (in the pod: the in-cluster config).
	api := fakekube.New(t)
	allowed := rbacAllows(objs)
	api.Deny = func(r fakekube.Review) bool { return !allowed(r.Group, r.Resource, r.Namespace, r.Name, r.Verb) }
	env := []string{"PATH=" + fake + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + systemPath(),
		"KUBECONFIG=" + api.Kubeconfig(t, t.TempDir())}
	for _, e := range c.Env {
		v := e.Value
		if edit, ok := envEdits[e.Name]; ok {
			v = edit // the user's edit: the add-on to install
		}
		env = append(env, e.Name+"="+mapPaths(v))
	}
	args := append(slices.Clone(c.Command[1:]), mapPaths(c.Args[0]))
	cmd := exec.Command(c.Command[0], args...)
	cmd.Env, cmd.Dir = env, r.root
	out, err := cmd.CombinedOutput()
	r.output, r.code = string(out), exitCode(t, err)
	return r
}

// TestUseCaseInstallJob runs the Job's script end to end against a registry
// holding the signed add-on.
func TestUseCaseInstallJob(t *testing.T) {
	objs := installJob(t)
	reg := testregistry.New(t)
	keys := t.TempDir()
	keygen(t, keys, "publisher")
	keygen(t, keys, "stranger")
	ref := reg.Host() + "/addons/hello:0.1.0"
	pushed, code := addonpack(t, "", []string{"HOME=" + t.TempDir(), "COSIGN_PASSWORD=" + testPassword},
		"push", "hello", ref, "--key", filepath.Join(keys, "publisher.key"))
	if code != 0 {
		t.Fatalf("push: exit %d\n%s", code, pushed)
	}
	pub, err := os.ReadFile(filepath.Join(keys, "publisher.pub"))
	if err != nil {
		t.Fatal(err)
	}

	t.Run("signed", func(t *testing.T) {
		r := runInstallJob(t, objs, ref, pub)
		if r.code != 0 {
			t.Fatalf("the Job's script: exit %d\n%s", r.code, r.output)
		}
		args, err := os.ReadFile(filepath.Join(r.kubectlLog, "args"))
		if err != nil {
			t.Fatal(err)
		}
		outFile := filepath.Join(r.root, "work", "out.yaml")
		if got, want := strings.Split(strings.TrimSpace(string(args)), "\n"),
			[]string{"apply", "--server-side", "--field-manager=addonpack", "-f", outFile}; !slices.Equal(got, want) {
			t.Errorf("kubectl %q, want %q", got, want)
		}
		applied, err := os.ReadFile(filepath.Join(r.kubectlLog, "applied.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got := parseObjects(t, applied)
		if kinds := kindsOf(got); !slices.Equal(kinds, []string{"Deployment", "Namespace", "Service", "ServiceAccount"}) {
			t.Fatalf("applied kinds %v", kinds)
		}
		var dep struct {
			Replicas int `json:"replicas"`
			Template struct {
				Spec struct {
					Containers []struct {
						Env []struct{ Name, Value string } `json:"env"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		}
		if err := json.Unmarshal(find(got, "Deployment")[0].Spec, &dep); err != nil {
			t.Fatal(err)
		}
		if dep.Replicas != 3 || len(dep.Template.Spec.Containers) != 1 ||
			!slices.Contains(dep.Template.Spec.Containers[0].Env, struct{ Name, Value string }{"ECHO_TEXT", "installed by the addonpack Job"}) {
			t.Errorf("the ConfigMap's values did not reach the Deployment: %+v", dep)
		}
		// HOME on the emptyDir held addonpack's cache (the root filesystem is read-only in the pod).
		if _, err := os.Stat(filepath.Join(r.root, "work", ".cache", "addonpack")); err != nil {
			t.Errorf("no cache under HOME=/work: %v", err)
		}
		checkRBACCovers(t, objs, got)
	})

	t.Run("untrusted key", func(t *testing.T) {
		stranger, err := os.ReadFile(filepath.Join(keys, "stranger.pub"))
		if err != nil {
			t.Fatal(err)
		}
		r := runInstallJob(t, objs, ref, stranger)
		if r.code != 9 {
			t.Fatalf("exit %d, want 9 (verification failed)\n%s", r.code, r.output)
		}
		if _, err := os.Stat(filepath.Join(r.kubectlLog, "args")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("kubectl ran although verification failed")
		}
	})

	t.Run("preflight refuses what the Role does not grant", func(t *testing.T) {
		var narrowed []k8sObject
		for _, o := range objs {
			if o.Kind == "Role" {
				o.Rules = slices.DeleteFunc(slices.Clone(o.Rules), func(r rbacRule) bool { return slices.Contains(r.Resources, "deployments") })
			}
			narrowed = append(narrowed, o)
		}
		r := runInstallJob(t, narrowed, ref, pub)
		if r.code != 9 || !strings.Contains(r.output, `may not create deployments.apps "hello" in namespace hello`) {
			t.Fatalf("exit %d, want 9 naming the Deployment\n%s", r.code, r.output)
		}
		if _, err := os.Stat(filepath.Join(r.kubectlLog, "args")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("kubectl ran although preflight failed")
		}
	})

	t.Run("README and Flux", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cosign.pub"), pub, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cm := range find(objs, "ConfigMap") {
			if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte(cm.Data["values.yaml"]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		results := runDocCommands(t, "install-job/README.md", dir, []string{"REGISTRY=" + reg.Host()})
		if len(results) < 3 {
			t.Fatalf("ran %d README commands", len(results))
		}
		if !strings.Contains(results[0].stdout, "kind: Deployment") {
			t.Errorf("kinds listing: %q", results[0].stdout)
		}
		flux, err := os.ReadFile(filepath.Join(dir, "hello-flux.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		fobjs := parseObjects(t, flux)
		if kinds := kindsOf(fobjs); !slices.Equal(kinds, []string{"Kustomization", "OCIRepository", "Secret"}) {
			t.Fatalf("flux objects %v", kinds)
		}
		digest := regexp.MustCompile(`@(sha256:[0-9a-f]{64})`).FindStringSubmatch(pushed)[1]
		var repo struct {
			URL string `json:"url"`
			Ref struct {
				Digest string `json:"digest"`
			} `json:"ref"`
			Verify struct {
				Provider  string                `json:"provider"`
				SecretRef struct{ Name string } `json:"secretRef"`
			} `json:"verify"`
		}
		if err := json.Unmarshal(find(fobjs, "OCIRepository")[0].Spec, &repo); err != nil {
			t.Fatal(err)
		}
		if repo.URL != "oci://"+reg.Host()+"/addons/hello" || repo.Ref.Digest != digest || repo.Verify.Provider != "cosign" ||
			repo.Verify.SecretRef.Name != find(fobjs, "Secret")[0].Metadata.Name {
			t.Errorf("OCIRepository %+v (pushed %s)", repo, digest)
		}
		if !strings.Contains(string(flux), strings.TrimSpace(strings.Split(string(pub), "\n")[1])) {
			t.Error("the Secret does not carry the public key")
		}
		if _, err := os.Stat(filepath.Join(dir, "clusters", "prod", "hello", "kustomization.yaml")); err != nil {
			t.Errorf("render --format kustomize: %v", err)
		}
	})
}

// checkRBACCovers: every object the Job applies is allowed by a rule bound to
// its ServiceAccount — patch always, create unless the object is created
// beforehand by the install manifests (the add-on's Namespace).
func checkRBACCovers(t *testing.T, install, applied []k8sObject) {
	t.Helper()
	allowed := rbacAllows(install)
	existing := map[string]bool{}
	for _, o := range find(install, "Namespace") {
		existing["Namespace/"+o.Metadata.Name] = true
	}
	for _, o := range applied {
		group := ""
		if i := strings.Index(o.APIVersion, "/"); i >= 0 {
			group = o.APIVersion[:i]
		}
		resource := strings.ToLower(o.Kind) + "s"
		verbs := []string{"patch", "create"}
		if existing[o.Kind+"/"+o.Metadata.Name] {
			verbs = []string{"patch"}
		}
		for _, v := range verbs {
			if !allowed(group, resource, o.Metadata.Namespace, o.Metadata.Name, v) {
				t.Errorf("RBAC does not allow %s on %s %s/%s", v, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
			}
		}
	}
}

// rbacAllows evaluates the install manifests' Roles and ClusterRoles, through
// their bindings, as RBAC does for the Job's ServiceAccount.
func rbacAllows(install []k8sObject) func(group, resource, ns, name, verb string) bool {
	roles := map[string][]rbacRule{} // "Role/ns/name" or "ClusterRole//name"
	for _, o := range install {
		if o.Kind == "Role" || o.Kind == "ClusterRole" {
			roles[o.Kind+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name] = o.Rules
		}
	}
	type grant struct {
		namespace string // "" for cluster-wide
		rules     []rbacRule
	}
	var grants []grant
	for _, o := range install {
		switch o.Kind {
		case "RoleBinding":
			grants = append(grants, grant{o.Metadata.Namespace, roles[o.RoleRef.Kind+"/"+o.Metadata.Namespace+"/"+o.RoleRef.Name]})
		case "ClusterRoleBinding":
			grants = append(grants, grant{"", roles["ClusterRole//"+o.RoleRef.Name]})
		}
	}
	return func(group, resource, ns, name, verb string) bool {
		for _, g := range grants {
			if g.namespace != "" && g.namespace != ns {
				continue
			}
			for _, r := range g.rules {
				if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) &&
					(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)) {
					return true
				}
			}
		}
		return false
	}
}
