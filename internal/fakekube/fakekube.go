// Package fakekube is a stand-in Kubernetes API server for tests of
// addonpack preflight without a cluster: /version, discovery of a fixed set
// of resources, access reviews answered by a function, and no installed
// CRDs. It speaks the JSON client-go reads, on loopback (httptest); the
// end-to-end suite (e2e/) runs the same checks against a real API server.
package fakekube

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Version is the server version the fake reports.
const Version = "v1.34.4"

// Review is one access review the fake was asked.
type Review struct {
	User                                   string
	Verb, Group, Resource, Namespace, Name string
}

// Server is a running fake.
type Server struct {
	URL string
	// Deny, when set, refuses the reviews it returns true for.
	Deny func(Review) bool

	mu      sync.Mutex
	reviews []Review
}

type resource struct {
	gv, name, kind string
	namespaced     bool
}

// resources are the kinds the example add-ons and stacks use.
var resources = []resource{
	{"v1", "namespaces", "Namespace", false}, {"v1", "services", "Service", true},
	{"v1", "serviceaccounts", "ServiceAccount", true}, {"v1", "configmaps", "ConfigMap", true},
	{"v1", "secrets", "Secret", true}, {"v1", "pods", "Pod", true},
	{"apps/v1", "deployments", "Deployment", true}, {"apps/v1", "daemonsets", "DaemonSet", true},
	{"apps/v1", "statefulsets", "StatefulSet", true}, {"batch/v1", "jobs", "Job", true},
	{"policy/v1", "poddisruptionbudgets", "PodDisruptionBudget", true},
	{"rbac.authorization.k8s.io/v1", "roles", "Role", true}, {"rbac.authorization.k8s.io/v1", "rolebindings", "RoleBinding", true},
	{"rbac.authorization.k8s.io/v1", "clusterroles", "ClusterRole", false}, {"rbac.authorization.k8s.io/v1", "clusterrolebindings", "ClusterRoleBinding", false},
	{"apiextensions.k8s.io/v1", "customresourcedefinitions", "CustomResourceDefinition", false},
	{"admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false},
	{"admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false},
	{"apiregistration.k8s.io/v1", "apiservices", "APIService", false},
	// A cluster running the Prometheus Operator: examples/stack's values
	// for cert-operator enable its ServiceMonitor.
	{"monitoring.coreos.com/v1", "servicemonitors", "ServiceMonitor", true},
	{"authorization.k8s.io/v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
	{"authorization.k8s.io/v1", "subjectaccessreviews", "SubjectAccessReview", false},
}

// New starts a fake for the test's duration.
func New(t testing.TB) *Server {
	s := &Server{}
	ts := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Kubeconfig writes a kubeconfig for the fake into dir and returns its path.
func (s *Server) Kubeconfig(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster: {server: %q}
users:
  - name: fake
    user: {token: fake}
contexts:
  - name: fake
    context: {cluster: fake, user: fake}
current-context: fake
`, s.URL)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Reviews returns the access reviews asked so far.
func (s *Server) Reviews() []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Review(nil), s.reviews...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	p := r.URL.Path
	switch {
	case p == "/version":
		writeJSON(w, map[string]string{"major": "1", "minor": "34", "gitVersion": Version})
	case p == "/api":
		writeJSON(w, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}})
	case p == "/apis":
		writeJSON(w, groupList())
	case p == "/api/v1" || strings.HasPrefix(p, "/apis/") && strings.Count(p, "/") == 3:
		s.resourceList(w, strings.TrimPrefix(strings.TrimPrefix(p, "/api/"), "/apis/"))
	case r.Method == http.MethodPost && strings.HasSuffix(p, "accessreviews"):
		s.review(w, r)
	default:
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
			"message": p + " not found"})
	}
}

func groupList() map[string]any {
	var groups []map[string]any
	seen := map[string]bool{}
	for _, r := range resources {
		g, v, ok := strings.Cut(r.gv, "/")
		if !ok || seen[g] {
			continue
		}
		seen[g] = true
		gv := map[string]string{"groupVersion": r.gv, "version": v}
		groups = append(groups, map[string]any{"name": g, "versions": []any{gv}, "preferredVersion": gv})
	}
	return map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
}

func (s *Server) resourceList(w http.ResponseWriter, gv string) {
	var list []map[string]any
	for _, r := range resources {
		if r.gv == gv {
			list = append(list, map[string]any{"name": r.name, "kind": r.kind, "namespaced": r.namespaced,
				"singularName": "", "verbs": []string{"create", "get", "patch"}})
		}
	}
	if list == nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	writeJSON(w, map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": list})
}

func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	var spec struct {
		Spec struct {
			User               string `json:"user"`
			ResourceAttributes struct {
				Verb, Group, Resource, Namespace, Name string
			} `json:"resourceAttributes"`
		} `json:"spec"`
	}
	body := http.MaxBytesReader(w, r.Body, 1<<20)
	dec := json.NewDecoder(body)
	if err := dec.Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b, _ := json.Marshal(req)
	_ = json.Unmarshal(b, &spec)
	a := spec.Spec.ResourceAttributes
	rv := Review{User: spec.Spec.User, Verb: a.Verb, Group: a.Group, Resource: a.Resource, Namespace: a.Namespace, Name: a.Name}
	s.mu.Lock()
	s.reviews = append(s.reviews, rv)
	deny := s.Deny
	s.mu.Unlock()
	allowed := deny == nil || !deny(rv)
	req["status"] = map[string]any{"allowed": allowed}
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, req)
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
