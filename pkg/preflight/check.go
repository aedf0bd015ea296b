package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/semver"
)

// Addon is one rendered add-on to check.
type Addon struct {
	Name, Version, Source string
	// Kubernetes is addon.yaml's spec.kubernetes range ("" : any).
	Kubernetes string
	// Objects is the rendered YAML stream, as render prints it.
	Objects []byte
}

// Check runs every check against cl for addons, in install order: a CRD of
// an earlier add-on creates kinds for the later ones. serverVersion is
// cl.ServerVersion's answer (asked once by the caller, which renders with
// it). The error is for a cluster that could not answer; what the checks
// find is in the report (Report.Err).
func Check(ctx context.Context, cl Cluster, serverVersion string, addons []Addon, o Options) (*Report, error) {
	kube, err := config.ParseKubeVersion(serverVersion)
	if err != nil {
		return nil, fmt.Errorf("the API server's version: %w", err)
	}
	served, err := cl.ServerResources(ctx)
	if err != nil {
		return nil, err
	}
	c := &checker{cl: cl, o: o, kinds: map[gvk]Resource{}, unavailable: map[string]bool{}}
	if c.o.Namespace == "" {
		c.o.Namespace = "default"
	}
	for _, r := range served.Resources {
		c.kinds[gvk{r.Group, r.Version, r.Kind}] = r
	}
	for _, gv := range served.Unavailable {
		c.unavailable[gv] = true
	}
	rep := &Report{Server: o.Server, ServerVersion: serverVersion, User: o.User, Groups: o.Groups, Passed: true}
	for _, a := range addons {
		ar, err := c.addon(ctx, kube, a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, err)
		}
		rep.Passed = rep.Passed && len(ar.Findings) == 0
		rep.Addons = append(rep.Addons, ar)
	}
	return rep, nil
}

type gvk struct{ group, version, kind string }

// object is what the checks read of one rendered object.
type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	raw json.RawMessage
}

func (o object) gvk() gvk {
	g, v, ok := strings.Cut(o.APIVersion, "/")
	if !ok {
		g, v = "", o.APIVersion
	}
	return gvk{g, v, o.Kind}
}

func (o object) String() string {
	name := o.Metadata.Name
	if o.Metadata.Namespace != "" {
		name = o.Metadata.Namespace + "/" + name
	}
	return o.APIVersion + " " + o.Kind + " " + name
}

// parseObjects reads a rendered YAML stream.
func parseObjects(stream []byte) ([]object, error) {
	b, err := render.ToJSON(stream)
	if err != nil {
		return nil, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, err
	}
	objs := make([]object, len(list.Items))
	for i, raw := range list.Items {
		if err := json.Unmarshal(raw, &objs[i]); err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		objs[i].raw = raw
	}
	return objs, nil
}

// checker carries what the checks learn across the add-ons of a stack.
type checker struct {
	cl          Cluster
	o           Options
	kinds       map[gvk]Resource // served, then added by each add-on's CRDs
	unavailable map[string]bool  // apiVersions ("group/version", "v1") discovery could not list
}

func (c *checker) addon(ctx context.Context, kube semver.Version, a Addon) (AddonReport, error) {
	ar := AddonReport{Name: a.Name, Version: a.Version, Source: a.Source, Kubernetes: a.Kubernetes}
	find := func(check string, obj object, format string, args ...any) {
		f := Finding{Check: check, Message: fmt.Sprintf(format, args...)}
		if obj.Kind != "" {
			f.Object = obj.String()
		}
		ar.Findings = append(ar.Findings, f)
	}
	if a.Kubernetes != "" {
		r, err := semver.ParseRange(a.Kubernetes)
		if err != nil {
			return ar, fmt.Errorf("spec.kubernetes %q: %w", a.Kubernetes, err)
		}
		if !r.Match(kube) {
			find(CheckKubernetes, object{}, "the add-on supports Kubernetes %s; the cluster runs %s", a.Kubernetes, kube)
		}
	}
	objs, err := parseObjects(a.Objects)
	if err != nil {
		return ar, fmt.Errorf("the rendered objects: %w", err)
	}
	ar.Objects = len(objs)
	crds, err := c.crds(objs)
	if err != nil {
		return ar, err
	}
	if err := c.compareCRDs(ctx, crds, &ar, find); err != nil {
		return ar, err
	}
	if err := c.access(ctx, objs, &ar, find); err != nil {
		return ar, err
	}
	ar.Warnings = append(ar.Warnings, webhookWarnings(objs)...)
	return ar, nil
}

// crds parses the add-on's CRDs and adds the kinds each serves to the
// kinds the add-on's objects (and later add-ons') may use.
func (c *checker) crds(objs []object) ([]*CRD, error) {
	var out []*CRD
	for _, o := range objs {
		if o.gvk() != (gvk{"apiextensions.k8s.io", "v1", "CustomResourceDefinition"}) {
			continue
		}
		crd, err := ParseCRD(o.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o, err)
		}
		for _, v := range crd.Versions {
			if v.Served {
				c.kinds[gvk{crd.Group, v.Name, crd.Kind}] = Resource{Group: crd.Group, Version: v.Name, Kind: crd.Kind, Name: crd.Plural, Namespaced: crd.Namespaced}
			}
		}
		out = append(out, crd)
	}
	return out, nil
}

// compareCRDs compares each CRD of the add-on with the installed one.
func (c *checker) compareCRDs(ctx context.Context, crds []*CRD, ar *AddonReport, find func(string, object, string, ...any)) error {
	for _, crd := range crds {
		obj := object{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}
		obj.Metadata.Name = crd.Name
		old, err := c.cl.GetCRD(ctx, crd.Name)
		switch {
		case errors.Is(err, errdef.ErrDenied):
			find(CheckCRD, obj, "cannot read the installed CRD to compare it (%v): grant get on customresourcedefinitions %s", err, crd.Name)
			continue
		case err != nil:
			return err
		case old == nil:
			continue
		}
		ar.Checked.CRDs++
		for _, m := range compareCRD(old, crd) {
			find(CheckCRD, obj, "%s", m)
		}
	}
	return nil
}

// access checks each object's kind is served and asks whether the caller
// may create and patch it, as server-side apply does: patch for an object
// that exists, create (with its name) for one that does not.
func (c *checker) access(ctx context.Context, objs []object, ar *AddonReport, find func(string, object, string, ...any)) error {
	seenKind := map[gvk]bool{}
	asked := map[Access]bool{}
	for _, o := range objs {
		k := o.gvk()
		r, ok := c.kinds[k]
		if !seenKind[k] {
			seenKind[k] = true
			ar.Checked.Kinds++
			switch {
			case ok:
			case c.unavailable[o.APIVersion]:
				ar.Warnings = append(ar.Warnings, Finding{Check: CheckServed, Object: o.String(),
					Message: fmt.Sprintf("the server could not list %s (an aggregated API without a running backend?): not checked", o.APIVersion)})
			default:
				find(CheckServed, o, "%s %s is not served by the cluster, and no CRD of this add-on or an earlier one creates it", o.APIVersion, o.Kind)
			}
		}
		if !ok {
			continue
		}
		ns := ""
		if r.Namespaced {
			if ns = o.Metadata.Namespace; ns == "" {
				ns = c.o.Namespace
			}
		}
		for _, verb := range []string{"create", "patch"} {
			a := Access{Verb: verb, Group: r.Group, Resource: r.Name, Namespace: ns, Name: o.Metadata.Name}
			if asked[a] {
				continue
			}
			asked[a] = true
			d, err := c.cl.AccessReview(ctx, a)
			if err != nil {
				return fmt.Errorf("access review (%s %s): %w", verb, o, err)
			}
			ar.Checked.AccessReviews++
			if !d.Allowed {
				find(CheckAccess, o, "%s", denial(a, d))
			}
		}
	}
	return nil
}

// denial says what may not be done, as RBAC would grant it.
func denial(a Access, d Decision) string {
	res := a.Resource
	if a.Group != "" {
		res += "." + a.Group
	}
	where := "(cluster scope)"
	if a.Namespace != "" {
		where = "in namespace " + a.Namespace
	}
	msg := fmt.Sprintf("may not %s %s %q %s", a.Verb, res, a.Name, where)
	if d.Reason != "" {
		msg += ": " + d.Reason
	}
	return msg
}
