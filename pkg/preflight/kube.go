package preflight

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// Config says how to reach the cluster, as kubectl reads it.
type Config struct {
	// Kubeconfig is the kubeconfig file; "" means the files KUBECONFIG
	// lists, else $HOME/.kube/config, else the pod's own service account
	// (in a cluster).
	Kubeconfig string
	// Context is the kubeconfig context; "" means its current one.
	Context string
	// As and AsGroups, when set, are asked about with SubjectAccessReviews
	// (the caller must be allowed to create those) instead of the
	// caller's own SelfSubjectAccessReviews.
	As       string
	AsGroups []string
	// Getenv reads KUBECONFIG and HOME; nil reads nothing.
	Getenv func(string) string
	// Timeout bounds each request; 0 means 30 s.
	Timeout time.Duration
}

// Kube is a Cluster over client-go.
type Kube struct {
	disc      *discovery.DiscoveryClient
	authz     *authorizationclient.AuthorizationV1Client
	as        string
	asGroups  []string
	server    string
	namespace string
}

// Connect reads the kubeconfig (or the in-cluster configuration) of cfg.
// Nothing is sent until a check asks.
func Connect(cfg Config) (*Kube, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: cfg.Kubeconfig}
	if cfg.Kubeconfig != "" {
		if _, err := os.Stat(cfg.Kubeconfig); err != nil {
			return nil, fmt.Errorf("--kubeconfig: %w", err)
		}
	} else if env := getenv("KUBECONFIG"); env != "" {
		rules.Precedence = filepath.SplitList(env)
	} else if home := getenv("HOME"); home != "" {
		rules.Precedence = []string{filepath.Join(home, ".kube", "config")}
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: cfg.Context})
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	rc.Timeout = cfg.Timeout
	if rc.Timeout == 0 {
		rc.Timeout = 30 * time.Second
	}
	// An access review per object and verb: client-go's default of 5
	// requests a second would make a large add-on wait for itself.
	rc.QPS, rc.Burst = 100, 200
	rc.UserAgent = "addonpack-preflight"
	// JSON both ways: the few small requests gain nothing from protobuf,
	// and a stand-in server in the tests speaks JSON only.
	rc.ContentType, rc.AcceptContentTypes = "application/json", "application/json"
	disc, err := discovery.NewDiscoveryClientForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	authz, err := authorizationclient.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	return &Kube{disc: disc, authz: authz, as: cfg.As, asGroups: cfg.AsGroups, server: rc.Host, namespace: ns}, nil
}

// Options are the checks' options for this cluster: its URL, the
// kubeconfig context's namespace ("default" when it names none; the pod's
// in a cluster) and whom access is reviewed for.
func (k *Kube) Options() Options {
	return Options{Server: k.server, Namespace: k.namespace, User: k.as, Groups: k.asGroups}
}

// ServerVersion implements Cluster.
func (k *Kube) ServerVersion(ctx context.Context) (string, error) {
	v, err := k.disc.ServerVersion()
	if err != nil {
		return "", k.classify("GET /version", err)
	}
	return v.GitVersion, nil
}

// ServerResources implements Cluster. A group the server lists but cannot
// serve (an aggregated API whose backend is down) is reported unavailable.
func (k *Kube) ServerResources(ctx context.Context) (Served, error) {
	_, lists, err := k.disc.ServerGroupsAndResources()
	var s Served
	if err != nil {
		var failed *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &failed) {
			return s, k.classify("discovery", err)
		}
		for gv := range failed.Groups {
			s.Unavailable = append(s.Unavailable, gv.String())
		}
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return s, fmt.Errorf("discovery: %w", err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") { // a subresource
				continue
			}
			s.Resources = append(s.Resources, Resource{Group: gv.Group, Version: gv.Version, Kind: r.Kind, Name: r.Name, Namespaced: r.Namespaced})
		}
	}
	return s, nil
}

// AccessReview implements Cluster: a SelfSubjectAccessReview, or a
// SubjectAccessReview for the user and groups of Config.As.
func (k *Kube) AccessReview(ctx context.Context, a Access) (Decision, error) {
	attrs := &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Namespace: a.Namespace, Name: a.Name}
	var st authorizationv1.SubjectAccessReviewStatus
	if k.as != "" || len(k.asGroups) > 0 {
		r, err := k.authz.SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs, User: k.as, Groups: k.asGroups},
		}, metav1.CreateOptions{})
		if err != nil {
			return Decision{}, k.classify("SubjectAccessReview (--as needs create on subjectaccessreviews)", err)
		}
		st = r.Status
	} else {
		r, err := k.authz.SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			return Decision{}, k.classify("SelfSubjectAccessReview", err)
		}
		st = r.Status
	}
	return Decision{Allowed: st.Allowed && !st.Denied, Reason: st.Reason}, nil
}

// GetCRD implements Cluster.
func (k *Kube) GetCRD(ctx context.Context, name string) (*CRD, error) {
	b, err := k.disc.RESTClient().Get().AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name).DoRaw(ctx)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, k.classify("GET customresourcedefinitions/"+name, err)
	}
	crd, err := ParseCRD(b)
	if err != nil {
		return nil, fmt.Errorf("the installed %s: %w", name, err)
	}
	return crd, nil
}

// classify puts a client-go error in its class: refused credentials or
// rights, or a server that could not be reached.
func (k *Kube) classify(what string, err error) error {
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err):
		return fmt.Errorf("%s at %s: %w: %w", what, k.server, ErrDenied, err)
	case errors.As(err, &urlErr) || errors.As(err, &netErr):
		return fmt.Errorf("%s at %s: %w: %w", what, k.server, ErrUnreachable, err)
	}
	return fmt.Errorf("%s at %s: %w", what, k.server, err)
}
