package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
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

// Kube is a Cluster over the API server's HTTP API, reached with client-go's
// kubeconfig loading and authenticated transport (clientcmd, rest). The
// requests are plain JSON: client-go's discovery and typed clients would
// link every API group's types into the binary (about 40 MB) for five
// kinds of request.
type Kube struct {
	hc        *http.Client
	base      *url.URL
	as        string
	asGroups  []string
	namespace string
}

// maxResponse bounds what is read of one answer of the API server.
const maxResponse = 32 << 20

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
	rc.UserAgent = "addonpack-preflight"
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	base, _, err := rest.DefaultServerUrlFor(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKubeconfig, err)
	}
	return &Kube{hc: hc, base: base, as: cfg.As, asGroups: cfg.AsGroups, namespace: ns}, nil
}

// Options are the checks' options for this cluster: its URL, the
// kubeconfig context's namespace ("default" when it names none; the pod's
// in a cluster) and whom access is reviewed for.
func (k *Kube) Options() Options {
	return Options{Server: k.base.String(), Namespace: k.namespace, User: k.as, Groups: k.asGroups}
}

// statusError is an answer other than 2xx.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.code, e.msg) }

// do sends one JSON request and decodes the answer into out.
func (k *Kube) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	u := *k.base
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s at %s: %w: %w", method, path, k.base, ErrUnreachable, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return fmt.Errorf("%s %s at %s: %w: %w", method, path, k.base, ErrUnreachable, err)
	}
	// Refused in words, not decoded cut short (which would read as a
	// malformed answer, or worse, as a shorter valid one).
	if len(b) > maxResponse {
		return fmt.Errorf("%s %s at %s: %w: the answer is larger than %d MiB", method, path, k.base, ErrUnreachable, maxResponse>>20)
	}
	if resp.StatusCode/100 != 2 {
		var st metav1.Status
		msg := resp.Status
		if json.Unmarshal(b, &st) == nil && st.Message != "" {
			msg = st.Message
		}
		err := &statusError{resp.StatusCode, msg}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return fmt.Errorf("%s %s at %s: %w: %w", method, path, k.base, ErrDenied, err)
		}
		return fmt.Errorf("%s %s at %s: %w", method, path, k.base, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s at %s: %w", method, path, k.base, err)
	}
	return nil
}

// ServerVersion implements Cluster.
func (k *Kube) ServerVersion(ctx context.Context) (string, error) {
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := k.do(ctx, http.MethodGet, "/version", nil, &v); err != nil {
		return "", err
	}
	return v.GitVersion, nil
}

// ServerResources implements Cluster: the legacy discovery documents, every
// version of every group. A group/version the server lists but cannot
// serve (an aggregated API whose backend is down) is reported unavailable.
func (k *Kube) ServerResources(ctx context.Context) (Served, error) {
	var core metav1.APIVersions
	if err := k.do(ctx, http.MethodGet, "/api", nil, &core); err != nil {
		return Served{}, err
	}
	var groups metav1.APIGroupList
	if err := k.do(ctx, http.MethodGet, "/apis", nil, &groups); err != nil {
		return Served{}, err
	}
	paths := map[string]string{} // groupVersion → path
	var order []string
	for _, v := range core.Versions {
		paths[v], order = "/api/"+v, append(order, v)
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			paths[v.GroupVersion], order = "/apis/"+v.GroupVersion, append(order, v.GroupVersion)
		}
	}
	var s Served
	for _, gv := range order {
		var l metav1.APIResourceList
		err := k.do(ctx, http.MethodGet, paths[gv], nil, &l)
		var st *statusError
		switch {
		case errors.As(err, &st) && !errors.Is(err, ErrDenied):
			s.Unavailable = append(s.Unavailable, gv)
			continue
		case err != nil:
			return s, err
		}
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", gv
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") { // a subresource
				continue
			}
			s.Resources = append(s.Resources, Resource{Group: group, Version: version, Kind: r.Kind, Name: r.Name, Namespaced: r.Namespaced})
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
		var r authorizationv1.SubjectAccessReview
		err := k.do(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", &authorizationv1.SubjectAccessReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
			Spec:     authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs, User: k.as, Groups: k.asGroups},
		}, &r)
		if err != nil {
			return Decision{}, fmt.Errorf("SubjectAccessReview (--as needs create on subjectaccessreviews): %w", err)
		}
		st = r.Status
	} else {
		var r authorizationv1.SelfSubjectAccessReview
		err := k.do(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", &authorizationv1.SelfSubjectAccessReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"},
			Spec:     authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}, &r)
		if err != nil {
			return Decision{}, fmt.Errorf("SelfSubjectAccessReview: %w", err)
		}
		st = r.Status
	}
	return Decision{Allowed: st.Allowed && !st.Denied, Reason: st.Reason}, nil
}

// GetCRD implements Cluster.
func (k *Kube) GetCRD(ctx context.Context, name string) (*CRD, error) {
	var raw json.RawMessage
	err := k.do(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+url.PathEscape(name), nil, &raw)
	var st *statusError
	if errors.As(err, &st) && st.code == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	crd, err := ParseCRD(raw)
	if err != nil {
		return nil, fmt.Errorf("the installed %s: %w", name, err)
	}
	return crd, nil
}
