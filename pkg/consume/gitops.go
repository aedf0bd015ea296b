package consume

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// GitOps returns the objects tool ("flux" or "argocd") needs to consume ref
// straight from its registry, pinned by the digest verified here: tmpl
// carries the shared settings (namespaces, interval, public key, plain
// HTTP; loopback registries are reached over plain HTTP anyway), name the
// add-on ref must hold ("" : the repository's). With values (named
// valuesName), or for an add-on with profiles, whose package as published
// builds with none of them, the objects carry the resolved config as the
// patch deliver.Package.GitOpsEdits makes, and the package is fetched for
// that; otherwise only the manifest and config blob are read. It returns
// the verified artifact too. It is stack's Deliverer; render --for is one
// call of it.
func (c *Consumer) GitOps(ctx context.Context, ref registry.Reference, name string, values []byte, valuesName, tool string, tmpl deliver.GitOps) ([]byte, *artifact.Loaded, error) {
	if err := deliver.CheckTool(tool); err != nil {
		return nil, nil, err // before anything is fetched
	}
	g := tmpl
	var loaded *artifact.Loaded
	if g.Plugin != "" {
		return c.pluginApp(ctx, ref, name, values, valuesName, tool, g)
	}
	if values == nil {
		var err error
		if loaded, err = c.Load(ctx, ref, name); err != nil {
			return nil, nil, err
		}
	}
	if values != nil || deliver.HasProfiles(loaded.Addon) {
		p, err := c.Open(ctx, ref, name)
		if err != nil {
			return nil, nil, err
		}
		defer p.Close()
		if g.Edits, err = p.GitOpsEdits(ctx, values, valuesName); err != nil {
			return nil, nil, err
		}
		loaded = p.Loaded
	}
	if err := c.checkFluxKey(ctx, ref, loaded, tool, g); err != nil {
		return nil, nil, err
	}
	g.Ref, g.Addon = ref.WithDigest(loaded.Descriptor.Digest), loaded.Addon
	g.PlainHTTP = tmpl.PlainHTTP || registry.IsLoopback(ref.Registry)
	out, err := deliver.For(tool, g)
	return out, loaded, err
}

// checkFluxKey verifies the artifact under FluxKey, the key Flux is handed,
// so a key that did not sign it fails here (exit 9) and not in the cluster;
// without a key for Flux it warns that Flux will not verify the artifact.
func (c *Consumer) checkFluxKey(ctx context.Context, ref registry.Reference, loaded *artifact.Loaded, tool string, g deliver.GitOps) error {
	if tool != "flux" {
		return nil
	}
	if g.PublicKey == nil {
		c.warnf("%s: without --public-key, Flux applies the artifact without verifying its signature", ref)
		return nil
	}
	if c.FluxKey == nil {
		return nil
	}
	_, err := verify.Verify(ctx, verify.Target{Client: c.Client, Ref: ref}, loaded.Descriptor, c.FluxKey)
	if err != nil {
		return fmt.Errorf("--public-key: Flux would refuse %s: %w", ref.WithDigest(loaded.Descriptor.Digest), err)
	}
	return nil
}

// pluginApp is GitOps for an Argo CD Application that renders with the
// addonpack plugin: the values are checked now, as the plugin will render
// them, and handed to it whole (no kustomize edits).
func (c *Consumer) pluginApp(ctx context.Context, ref registry.Reference, name string, values []byte, valuesName, tool string, g deliver.GitOps) ([]byte, *artifact.Loaded, error) {
	if tool != "argocd" {
		return nil, nil, fmt.Errorf("--plugin %s: %w: a plugin is Argo CD's (--for argocd)", g.Plugin, deliver.ErrFormat)
	}
	p, err := c.Open(ctx, ref, name)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	if _, err := p.Render(ctx, values, valuesName); err != nil {
		return nil, nil, err
	}
	g.Ref, g.Addon, g.Values = ref.WithDigest(p.Loaded.Descriptor.Digest), p.Loaded.Addon, values
	out, err := deliver.ArgoCD(g)
	return out, p.Loaded, err
}
