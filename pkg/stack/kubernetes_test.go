package stack

import (
	"strings"
	"testing"
)

// TestStackKubernetes: the stack file's kubernetes is the cluster's
// version, read as render --kube-version reads it.
func TestStackKubernetes(t *testing.T) {
	const head = "apiVersion: addonpack.dev/v1alpha1\nkind: Stack\naddons:\n  - repository: registry.example.com/addons/hello\n    version: \">=0.1.0\"\n"
	st, err := Parse([]byte(head+"kubernetes: v1.30.2-eks-1\n"), "addons.yaml")
	if err != nil || st.Kubernetes != "v1.30.2-eks-1" {
		t.Fatalf("%v %v", st, err)
	}
	if _, err := Parse([]byte(head+"kubernetes: \"1.30\"\n"), "addons.yaml"); err == nil || !strings.Contains(err.Error(), "addons.yaml: kubernetes:") {
		t.Fatalf("1.30: %v", err)
	}
}
