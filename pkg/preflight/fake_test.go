package preflight

import (
	"context"
	"fmt"
	"slices"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// fakeCluster answers the checks from tables: the resources it serves,
// the accesses it denies, the CRDs installed.
type fakeCluster struct {
	version     string
	resources   []Resource
	unavailable []string
	denied      []Access
	crds        map[string]*CRD
	crdDenied   bool
	asked       []Access
}

func newFake() *fakeCluster {
	return &fakeCluster{version: "v1.34.4", resources: []Resource{
		{Version: "v1", Kind: "Namespace", Name: "namespaces"},
		{Version: "v1", Kind: "Service", Name: "services", Namespaced: true},
		{Version: "v1", Kind: "ServiceAccount", Name: "serviceaccounts", Namespaced: true},
		{Version: "v1", Kind: "ConfigMap", Name: "configmaps", Namespaced: true},
		{Group: "apps", Version: "v1", Kind: "Deployment", Name: "deployments", Namespaced: true},
		{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Name: "customresourcedefinitions"},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration", Name: "validatingwebhookconfigurations"},
	}}
}

func (f *fakeCluster) ServerVersion(context.Context) (string, error) { return f.version, nil }
func (f *fakeCluster) ServerResources(context.Context) (Served, error) {
	return Served{Resources: f.resources, Unavailable: f.unavailable}, nil
}
func (f *fakeCluster) AccessReview(_ context.Context, a Access) (Decision, error) {
	f.asked = append(f.asked, a)
	if slices.Contains(f.denied, a) {
		return Decision{Reason: "no RBAC rule"}, nil
	}
	return Decision{Allowed: true}, nil
}
func (f *fakeCluster) GetCRD(_ context.Context, name string) (*CRD, error) {
	if f.crdDenied {
		return nil, fmt.Errorf("customresourcedefinitions %q is forbidden: %w", name, errdef.ErrDenied)
	}
	return f.crds[name], nil
}
