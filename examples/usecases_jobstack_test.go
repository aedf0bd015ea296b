package examples_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/testregistry"
)

// TestUseCaseInstallJobStack runs examples/install-job-stack's script end to
// end: the example stack is published signed and locked, the lock goes into
// the ConfigMap, and the Job renders the stack by its locked digests and
// applies 01-cert-manager then 02-cert-operator, waiting after each stage for
// the CRDs and Deployments it applied. A lock with a wrong digest fails the
// Job before kubectl runs.
func TestUseCaseInstallJobStack(t *testing.T) {
	objs := kustomizeExample(t, "install-job-stack")
	cms := find(objs, "ConfigMap")
	if len(cms) != 1 {
		t.Fatalf("want one ConfigMap, got %d", len(cms))
	}
	for _, f := range []string{"addons.yaml", "cert-operator.yaml"} {
		want, err := os.ReadFile(filepath.Join("stack", f))
		if err != nil {
			t.Fatal(err)
		}
		if got := cms[0].Data[f]; got != string(want) {
			t.Errorf("the ConfigMap's %s is not examples/stack/%s:\n%s", f, f, got)
		}
	}

	_, c, _ := checkJobHardened(t, objs)
	checkReadmeShowsScript(t, "install-job-stack/README.md", c.Args[0])

	reg := testregistry.New(t)
	dir := publishExampleStack(t, reg)
	if out, code := addonpack(t, dir, nil, "lock", "stack/addons.yaml", "--key", "release.pub"); code != 0 {
		t.Fatalf("lock: exit %d\n%s", code, out)
	}
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	data := map[string]string{ // the user's edits: their stack, its lock, the publisher's key
		"addons.yaml": read("stack/addons.yaml"),
		"addons.lock": read("stack/" + stack.LockName),
		"cosign.pub":  read("release.pub"),
	}
	// What a real `kubectl apply -o jsonpath=…` of each stage names (a part of it).
	applyOut := []string{
		"CustomResourceDefinition certificates.cert-manager.io \nDeployment cert-manager-webhook cert-manager\n",
		"Deployment cert-operator cert-operator-system\n",
	}

	t.Run("locked", func(t *testing.T) {
		r := runJob(t, objs, data, nil, applyOut)
		if r.code != 0 {
			t.Fatalf("the Job's script: exit %d\n%s", r.code, r.output)
		}
		order, err := os.ReadFile(filepath.Join(r.root, "work", "stack", stack.OrderFile))
		if err != nil {
			t.Fatal(err)
		}
		stages := strings.Fields(string(order))
		if len(stages) != 2 || !strings.HasPrefix(stages[0], "01-cert-manager") || !strings.HasPrefix(stages[1], "02-cert-operator") {
			t.Fatalf("order.txt %q", stages)
		}
		apply := func(stage string) string {
			return "apply --server-side --field-manager=addonpack -k " + filepath.Join(r.root, "work", "stack", stage) +
				` -o go-template={{if .items}}{{range .items}}{{.kind}} {{.metadata.name}} {{.metadata.namespace}}{{"\n"}}{{end}}{{else}}{{.kind}} {{.metadata.name}} {{.metadata.namespace}}{{"\n"}}{{end}}`
		}
		want := []string{
			apply(stages[0]),
			"wait --for=condition=Established --timeout=120s crd/certificates.cert-manager.io",
			"-n cert-manager rollout status --timeout=300s deployment/cert-manager-webhook",
			apply(stages[1]),
			"-n cert-operator-system rollout status --timeout=300s deployment/cert-operator",
		}
		calls, err := os.ReadFile(filepath.Join(r.kubectlLog, "calls"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSpace(string(calls)), "\n"); !slices.Equal(got, want) {
			t.Fatalf("kubectl calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}

		// What each stage applied: built as kubectl apply -k would.
		var applied []k8sObject
		for i, wantKinds := range [][]string{{"CustomResourceDefinition", "Deployment"}, {"Certificate", "Deployment", "Issuer"}} {
			m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(),
				filepath.Join(r.kubectlLog, "stage-"+string(rune('1'+i))))
			if err != nil {
				t.Fatalf("kustomize build of stage %d: %v", i+1, err)
			}
			y, err := m.AsYaml()
			if err != nil {
				t.Fatal(err)
			}
			got := parseObjects(t, y)
			for _, k := range wantKinds {
				if len(find(got, k)) == 0 {
					t.Errorf("stage %d (%s) applies no %s: %v", i+1, stages[i], k, kindsOf(got))
				}
			}
			applied = append(applied, got...)
		}
		for _, o := range find(applied, "Deployment") {
			if o.Metadata.Name != "cert-operator" {
				continue
			}
			var dep struct{ Replicas int }
			if err := json.Unmarshal(o.Spec, &dep); err != nil {
				t.Fatal(err)
			}
			if dep.Replicas != 3 {
				t.Errorf("cert-operator applied with %d replicas, cert-operator.yaml says 3", dep.Replicas)
			}
		}
		checkRBACCovers(t, objs, applied)
	})

	t.Run("tampered lock", func(t *testing.T) {
		lock, err := stack.ReadLock(filepath.Join(dir, "stack", stack.LockName))
		if err != nil {
			t.Fatal(err)
		}
		locked := lockedByName(t, lock, "cert-operator").Digest.String()
		wrong := locked[:len(locked)-1] + "0" // another sha256 digest, one hex digit off
		if strings.HasSuffix(locked, "0") {
			wrong = locked[:len(locked)-1] + "1"
		}
		tampered := maps.Clone(data)
		tampered["addons.lock"] = strings.Replace(data["addons.lock"], locked, wrong, 1)
		if tampered["addons.lock"] == data["addons.lock"] {
			t.Fatalf("the lock does not hold %s", locked)
		}
		r := runJob(t, objs, tampered, nil, applyOut)
		if r.code == 0 {
			t.Fatalf("the Job succeeded with a wrong digest in the lock\n%s", r.output)
		}
		if !strings.Contains(r.output, wrong) {
			t.Errorf("the failure does not name the locked digest %s:\n%s", wrong, r.output)
		}
		if _, err := os.Stat(filepath.Join(r.kubectlLog, "calls")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("kubectl ran although the lock did not verify")
		}
		if _, err := os.Stat(filepath.Join(r.root, "work", "stack")); !errors.Is(err, fs.ErrNotExist) {
			t.Error("render --stack left /work/stack behind")
		}
	})
}
