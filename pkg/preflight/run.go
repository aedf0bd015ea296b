package preflight

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// Packager opens one add-on (a reference, layout or directory), verified
// as render verifies it; *consume.Consumer is one.
type Packager interface {
	Package(ctx context.Context, arg string) (*deliver.Package, error)
}

// Package renders the add-on arg with the user's values (as render does,
// for the server's Kubernetes version) and checks it against cl.
func Package(ctx context.Context, cl Cluster, pk Packager, arg string, values []byte, valuesName string, o Options) (*Report, error) {
	version, kube, err := serverVersion(ctx, cl, o)
	if err != nil {
		return nil, err
	}
	p, err := pk.Package(ctx, arg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	a, err := rendered(ctx, p, kube, values, valuesName)
	if err != nil {
		return nil, err
	}
	return Check(ctx, cl, version, []Addon{a}, o)
}

// Stack renders every add-on of a locked stack in install order, each
// opened by its locked digest and verified again (stack.Each), and checks
// them together: a CRD of an earlier add-on serves the later ones' kinds.
func Stack(ctx context.Context, cl Cluster, op stack.Opener, steps []stack.Step, o Options) (*Report, error) {
	version, kube, err := serverVersion(ctx, cl, o)
	if err != nil {
		return nil, err
	}
	var addons []Addon
	err = stack.Each(ctx, op, steps, func(s stack.Step, p *deliver.Package, values []byte) error {
		a, err := rendered(ctx, p, kube, values, s.Values)
		if err != nil {
			return err
		}
		a.Source = s.Ref.String()
		addons = append(addons, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return Check(ctx, cl, version, addons, o)
}

func serverVersion(ctx context.Context, cl Cluster, o Options) (string, semver.Version, error) {
	version, err := cl.ServerVersion(ctx)
	if err != nil {
		return "", semver.Version{}, err
	}
	kube, err := config.ParseKubeVersion(version)
	if err != nil {
		return "", semver.Version{}, fmt.Errorf("the API server at %s: %w", o.Server, err)
	}
	return version, kube, nil
}

// rendered renders p for the cluster's Kubernetes version (components that
// depend on it are chosen for the server checked) with the user's values.
func rendered(ctx context.Context, p *deliver.Package, kube semver.Version, values []byte, valuesName string) (Addon, error) {
	p.KubeVersion = kube
	b, err := p.Render(ctx, values, valuesName)
	if err != nil {
		return Addon{}, err
	}
	a := Addon{Name: p.Addon.Metadata.Name, Version: p.Addon.Spec.Version, Source: p.Name, Kubernetes: p.Addon.Spec.Kubernetes, Objects: b}
	return a, nil
}
