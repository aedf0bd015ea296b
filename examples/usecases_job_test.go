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

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/testregistry"
)

// ---------------------------------------------------------------------------
// (c) the install Job and the Flux way

type k8sObject struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   k8sMeta           `json:"metadata"`
	Data       map[string]string `json:"data"`
	Rules      []rbacRule        `json:"rules"`
	RoleRef    struct {
		Kind, Name string
	} `json:"roleRef"`
	Subjects []struct {
		Kind, Name, Namespace string
	} `json:"subjects"`
	Spec json.RawMessage `json:"spec"`
}

type k8sMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

type rbacRule struct {
	APIGroups     []string `json:"apiGroups"`
	Resources     []string `json:"resources"`
	ResourceNames []string `json:"resourceNames"`
	Verbs         []string `json:"verbs"`
}

type k8sContainer struct {
	Name    string   `json:"name"`
	Image   string   `json:"image"`
	Command []string `json:"command"`
	Args    []string `json:"args"`
	Env     []struct {
		Name, Value string
	} `json:"env"`
	SecurityContext struct {
		ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `json:"drop"`
		} `json:"capabilities"`
	} `json:"securityContext"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly"`
	} `json:"volumeMounts"`
}

type jobSpec struct {
	BackoffLimit          *int `json:"backoffLimit"`
	ActiveDeadlineSeconds *int `json:"activeDeadlineSeconds"`
	Template              struct {
		Spec struct {
			ServiceAccountName           string `json:"serviceAccountName"`
			AutomountServiceAccountToken *bool  `json:"automountServiceAccountToken"`
			RestartPolicy                string `json:"restartPolicy"`
			SecurityContext              struct {
				RunAsNonRoot *bool `json:"runAsNonRoot"`
				RunAsUser    *int  `json:"runAsUser"`
			} `json:"securityContext"`
			Containers []k8sContainer `json:"containers"`
			Volumes    []struct {
				Name      string                 `json:"name"`
				ConfigMap *struct{ Name string } `json:"configMap"`
				EmptyDir  *json.RawMessage       `json:"emptyDir"`
			} `json:"volumes"`
		} `json:"spec"`
	} `json:"template"`
}

// installJob builds examples/install-job with kustomize, parses every file
// with kyaml, and returns the objects.
func installJob(t *testing.T) []k8sObject {
	t.Helper()
	files, err := filepath.Glob("install-job/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var fromFiles int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := kio.FromBytes(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range nodes {
			if n.GetKind() != "Kustomization" {
				fromFiles++
			}
		}
	}
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "install-job")
	if err != nil {
		t.Fatalf("kustomize build install-job: %v", err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	objs := parseObjects(t, out)
	if len(objs) != fromFiles {
		t.Errorf("kustomization lists %d objects, the files hold %d", len(objs), fromFiles)
	}
	return objs
}

func parseObjects(t *testing.T, b []byte) []k8sObject {
	t.Helper()
	nodes, err := kio.FromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	var objs []k8sObject
	for _, n := range nodes {
		s, err := n.String()
		if err != nil {
			t.Fatal(err)
		}
		var o k8sObject
		if err := sigsyaml.Unmarshal([]byte(s), &o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	return objs
}

func kindsOf(objs []k8sObject) []string {
	var kinds []string
	for _, o := range objs {
		if !slices.Contains(kinds, o.Kind) {
			kinds = append(kinds, o.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

func find(objs []k8sObject, kind string) []k8sObject {
	var out []k8sObject
	for _, o := range objs {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

const jobScriptReadme = "<!-- usecases-test: job-script"

// TestUseCaseInstallJobManifests is the structural check of the Job and its
// RBAC, config and namespaces.
func TestUseCaseInstallJobManifests(t *testing.T) {
	objs := installJob(t)
	want := []string{"ClusterRole", "ClusterRoleBinding", "ConfigMap", "Job", "Namespace", "Role", "RoleBinding", "ServiceAccount"}
	if kinds := kindsOf(objs); !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	jobs := find(objs, "Job")
	if len(jobs) != 1 {
		t.Fatalf("want one Job, got %d", len(jobs))
	}
	job, c := parseJob(t, jobs[0])
	ps := job.Template.Spec
	if ps.RestartPolicy != "Never" || job.BackoffLimit == nil || *job.BackoffLimit < 1 ||
		job.ActiveDeadlineSeconds == nil || *job.ActiveDeadlineSeconds < 60 {
		t.Errorf("Job: restartPolicy %q, backoffLimit %v, activeDeadlineSeconds %v", ps.RestartPolicy, job.BackoffLimit, job.ActiveDeadlineSeconds)
	}
	if ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot || ps.SecurityContext.RunAsUser == nil || *ps.SecurityContext.RunAsUser == 0 {
		t.Errorf("pod securityContext must run as a non-root uid: %+v", ps.SecurityContext)
	}
	sc := c.SecurityContext
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
		t.Errorf("container securityContext: %+v", sc)
	}
	sas := find(objs, "ServiceAccount")
	if len(sas) != 1 || ps.ServiceAccountName != sas[0].Metadata.Name || sas[0].Metadata.Namespace != jobs[0].Metadata.Namespace {
		t.Errorf("Job runs as %q; ServiceAccounts %+v", ps.ServiceAccountName, sas)
	}
	if ps.AutomountServiceAccountToken == nil || !*ps.AutomountServiceAccountToken {
		t.Error("the Job's pod must mount the ServiceAccount token: kubectl uses it")
	}

	// Mounts: the ConfigMap read-only at /etc/addonpack with both keys; emptyDirs for the rest.
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	vols := map[string]int{}
	for i, v := range ps.Volumes {
		vols[v.Name] = i
	}
	cfgVol := ps.Volumes[vols[mounts["/etc/addonpack"]]]
	if cfgVol.ConfigMap == nil {
		t.Fatalf("/etc/addonpack is not a ConfigMap volume")
	}
	var cm *k8sObject
	for _, o := range find(objs, "ConfigMap") {
		if o.Metadata.Name == cfgVol.ConfigMap.Name && o.Metadata.Namespace == jobs[0].Metadata.Namespace {
			cm = &o
		}
	}
	if cm == nil || cm.Data["values.yaml"] == "" || !strings.Contains(cm.Data["cosign.pub"], "BEGIN PUBLIC KEY") {
		t.Fatalf("ConfigMap %q with values.yaml and cosign.pub not found", cfgVol.ConfigMap.Name)
	}
	for _, p := range []string{"/work", "/tmp"} {
		if v := ps.Volumes[vols[mounts[p]]]; v.EmptyDir == nil {
			t.Errorf("%s must be an emptyDir (read-only root filesystem)", p)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if !underMount(env["HOME"], mounts) || !underMount(env["TMPDIR"], mounts) || env["ADDON_REF"] == "" {
		t.Errorf("HOME %q and TMPDIR %q must be on a mounted volume; ADDON_REF %q", env["HOME"], env["TMPDIR"], env["ADDON_REF"])
	}

	// The script: render with the mounted key and values into /work, then apply server-side.
	if !slices.Equal(c.Command, []string{"/bin/sh", "-euc"}) || len(c.Args) != 1 {
		t.Fatalf("command %q args %q: want /bin/sh -euc SCRIPT", c.Command, c.Args)
	}
	script := c.Args[0]
	for _, want := range []string{
		`addonpack render "$ADDON_REF" --key /etc/addonpack/cosign.pub --values /etc/addonpack/values.yaml > /work/out.yaml`,
		`&& kubectl apply --server-side --field-manager=addonpack -f /work/out.yaml`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	for _, p := range regexp.MustCompile(`(?:^|\s)(/[^\s"']+)`).FindAllStringSubmatch(script, -1) {
		if !underMount(p[1], mounts) {
			t.Errorf("script path %s is not on a mounted volume", p[1])
		}
	}
	// The README shows the same script.
	md, err := os.ReadFile("install-job/README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(t, string(md))
	var shown []string
	for _, b := range blocks {
		if b.lang == "sh" && strings.HasPrefix(b.marker, jobScriptReadme) {
			shown = append(shown, strings.TrimSpace(b.text))
		}
	}
	if len(shown) != 1 || shown[0] != strings.TrimSpace(script) {
		t.Errorf("install-job/README.md shows %q, job.yaml runs %q", shown, script)
	}

	// RBAC: nothing broad; bound to the Job's ServiceAccount only.
	for _, kind := range []string{"Role", "ClusterRole"} {
		for _, o := range find(objs, kind) {
			for _, r := range o.Rules {
				for _, list := range [][]string{r.APIGroups, r.Resources, r.Verbs} {
					if slices.Contains(list, "*") {
						t.Errorf("%s %s: wildcard in %+v", kind, o.Metadata.Name, r)
					}
				}
				for _, v := range r.Verbs {
					if !slices.Contains([]string{"get", "create", "patch"}, v) {
						t.Errorf("%s %s: verb %q beyond what server-side apply needs", kind, o.Metadata.Name, v)
					}
				}
				for _, res := range r.Resources {
					if slices.Contains([]string{"secrets", "roles", "clusterroles", "rolebindings", "clusterrolebindings"}, res) {
						t.Errorf("%s %s: grants %s", kind, o.Metadata.Name, res)
					}
				}
			}
		}
	}
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		for _, o := range find(objs, kind) {
			if len(o.Subjects) != 1 || o.Subjects[0].Kind != "ServiceAccount" || o.Subjects[0].Name != ps.ServiceAccountName ||
				o.Subjects[0].Namespace != jobs[0].Metadata.Namespace {
				t.Errorf("%s %s binds %+v", kind, o.Metadata.Name, o.Subjects)
			}
		}
	}
}

func parseJob(t *testing.T, o k8sObject) (jobSpec, k8sContainer) {
	t.Helper()
	var job jobSpec
	if err := json.Unmarshal(o.Spec, &job); err != nil {
		t.Fatal(err)
	}
	if len(job.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(job.Template.Spec.Containers))
	}
	return job, job.Template.Spec.Containers[0]
}

func underMount(p string, mounts map[string]string) bool {
	for m := range mounts {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}

// jobRun lays out the Job's volumes locally as the kubelet would (ConfigMap
// keys as files, emptyDirs empty) and runs the container's command with its
// env, a fake kubectl first on PATH and the mount paths mapped to the local
// directories — the only change to the script.
type jobRun struct {
	root, kubectlLog string
	code             int
	output           string
}

func runInstallJob(t *testing.T, objs []k8sObject, addonRef string, pubKey []byte) jobRun {
	t.Helper()
	jobs := find(objs, "Job")
	job, c := parseJob(t, jobs[0])
	r := jobRun{root: t.TempDir(), kubectlLog: t.TempDir()}
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
				if k == "cosign.pub" {
					val = string(pubKey) // the user's edit: the publisher's key
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
cat > "$log/stdin"
prev=
for a in "$@"; do
  if [ "$prev" = -f ]; then cp "$a" "$log/applied.yaml"; fi
  prev=$a
done
echo "fake kubectl: applied"
`, r.kubectlLog))
	binDir := filepath.Dir(addonpackBin)
	env := []string{"PATH=" + fake + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + systemPath()}
	for _, e := range c.Env {
		v := e.Value
		if e.Name == "ADDON_REF" {
			v = addonRef // the user's edit: the add-on to install
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
	existing := map[string]bool{}
	for _, o := range find(install, "Namespace") {
		existing["Namespace/"+o.Metadata.Name] = true
	}
	allowed := func(group, resource, ns, name, verb string) bool {
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
