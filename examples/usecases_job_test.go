package examples_test

import (
	"encoding/json"
	"os"
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
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	Annotations map[string]string `json:"annotations"`
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
	return kustomizeExample(t, "install-job")
}

// kustomizeExample builds the example directory dir with kustomize and
// returns its objects, checking that the kustomization lists every object its
// files hold.
func kustomizeExample(t *testing.T, dir string) []k8sObject {
	t.Helper()
	files, err := filepath.Glob(dir + "/*.yaml")
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
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
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

// checkJobHardened checks what every install Job of the examples must be: one
// Job, run to completion with retries and a deadline, non-root on a read-only
// root filesystem with no capabilities, its own ServiceAccount (token mounted
// for kubectl, the only subject of every binding), emptyDirs for /work and
// /tmp holding HOME and TMPDIR, and a /bin/sh -euc script whose absolute paths
// are all on mounted volumes. It returns the Job, its container and the mount
// paths (mount path → volume name).
func checkJobHardened(t *testing.T, objs []k8sObject) (jobSpec, k8sContainer, map[string]string) {
	t.Helper()
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

	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	vols := map[string]int{}
	for i, v := range ps.Volumes {
		vols[v.Name] = i
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
	if !underMount(env["HOME"], mounts) || !underMount(env["TMPDIR"], mounts) {
		t.Errorf("HOME %q and TMPDIR %q must be on a mounted volume", env["HOME"], env["TMPDIR"])
	}
	if !slices.Equal(c.Command, []string{"/bin/sh", "-euc"}) || len(c.Args) != 1 {
		t.Fatalf("command %q args %q: want /bin/sh -euc SCRIPT", c.Command, c.Args)
	}
	for _, p := range regexp.MustCompile(`(?:^|\s)(/[^\s"']+)`).FindAllStringSubmatch(c.Args[0], -1) {
		if !underMount(p[1], mounts) {
			t.Errorf("script path %s is not on a mounted volume", p[1])
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
	return job, c, mounts
}

// checkReadmeShowsScript: the README at md shows exactly one job-script block,
// and it is script, the one job.yaml runs.
func checkReadmeShowsScript(t *testing.T, md, script string) {
	t.Helper()
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, blk := range docBlocks(t, string(b)) {
		if blk.lang == "sh" && strings.HasPrefix(blk.marker, jobScriptReadme) {
			shown = append(shown, strings.TrimSpace(blk.text))
		}
	}
	if len(shown) != 1 || shown[0] != strings.TrimSpace(script) {
		t.Errorf("%s shows %q, job.yaml runs %q", md, shown, script)
	}
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
	job, c, mounts := checkJobHardened(t, objs)
	jobs := find(objs, "Job")
	ps := job.Template.Spec

	// Mounts: the ConfigMap read-only at /etc/addonpack with both keys; emptyDirs for the rest.
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
	var ref string
	for _, e := range c.Env {
		if e.Name == "ADDON_REF" {
			ref = e.Value
		}
	}
	if ref == "" {
		t.Error("no ADDON_REF")
	}

	// The script: render with the mounted key and values into /work, then apply server-side.
	script := c.Args[0]
	for _, want := range []string{
		`addonpack preflight "$ADDON_REF" --key /etc/addonpack/cosign.pub --values /etc/addonpack/values.yaml && `,
		`addonpack render "$ADDON_REF" --key /etc/addonpack/cosign.pub --values /etc/addonpack/values.yaml > /work/out.yaml`,
		`&& kubectl apply --server-side --field-manager=addonpack -f /work/out.yaml`,
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	// The README shows the same script.
	checkReadmeShowsScript(t, "install-job/README.md", script)

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
