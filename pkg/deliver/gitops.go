package deliver

import (
	"bytes"
	"fmt"
	"path"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// GitOps describes an artifact for the controllers that consume it straight
// from the registry. They build the package as published, with its packed
// default config (the package lists its defaults as a local-config
// resource), or with a user's values when Edits carries them (see
// Package.GitOpsEdits).
type GitOps struct {
	// Ref is the artifact, pinned by digest.
	Ref   registry.Reference
	Addon *spec.Addon
	// Namespace holds the Flux or Argo CD objects (flux-system, argocd by default).
	Namespace string
	// TargetNamespace, if set, is where the add-on's namespaced objects go.
	TargetNamespace string
	// PublicKey is a cosign public key (PEM); with it, Flux verifies the
	// signature before applying anything.
	PublicKey []byte
	// PlainHTTP marks a registry reached without TLS.
	PlainHTTP bool
	// Interval is how often the controllers reconcile; "10m" by default.
	Interval string
	// DependsOn names the add-ons (of the same stack, in the same
	// namespace) this one needs first: Flux Kustomization dependsOn.
	DependsOn []string
	// SyncWave, when set, is the Argo CD sync wave of the Application
	// (a stack's level): an app-of-apps parent syncs lower waves first.
	SyncWave string
	// Edits, from Package.GitOpsEdits, carry a user's values: the
	// controllers append them to the package's root kustomization.
	Edits Edits
	// Plugin, when set, names the Argo CD Config Management Plugin
	// (addonpack policy export --for argocd) the Application renders with:
	// addonpack render of Ref under the plugin's policy, with Values.
	Plugin string
	Values []byte
}

// The parameters of the Argo CD plugin, as the Application sets them
// (source.plugin.env; Argo CD hands them to the plugin as ARGOCD_ENV_…).
const (
	PluginRefEnv    = "ADDONPACK_REF"
	PluginValuesEnv = "ADDONPACK_VALUES"
)

func (g GitOps) defaults(ns string) GitOps {
	if g.Namespace == "" {
		g.Namespace = ns
	}
	if g.Interval == "" {
		g.Interval = "10m"
	}
	return g
}

func (g GitOps) url() string { return "oci://" + g.Ref.Repo() }

// Flux returns a Flux OCIRepository (pinned by digest, selecting the content
// layer by media type, verifying the cosign signature when a key is given, plus
// the Secret holding that key) and a Kustomization that applies it.
func Flux(g GitOps) ([]byte, error) {
	if g.Ref.Digest == "" {
		return nil, fmt.Errorf("%s: Flux objects need a reference pinned by digest", g.Ref)
	}
	g = g.defaults("flux-system")
	name := g.Addon.Metadata.Name
	repo := map[string]any{
		"interval":      g.Interval,
		"url":           g.url(),
		"ref":           map[string]any{"digest": g.Ref.Digest.String()},
		"layerSelector": map[string]any{"mediaType": spec.ContentMediaType, "operation": "extract"},
	}
	if g.PlainHTTP {
		repo["insecure"] = true
	}
	var docs []any
	if len(g.PublicKey) > 0 {
		secret := name + "-cosign-pub"
		repo["verify"] = map[string]any{"provider": "cosign", "secretRef": map[string]any{"name": secret}}
		docs = append(docs, map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata":   meta(secret, g.Namespace, g.Addon),
			"type":       "Opaque",
			"stringData": map[string]any{"cosign.pub": string(g.PublicKey)},
		})
	}
	docs = append(docs, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
		"metadata": meta(name, g.Namespace, g.Addon),
		"spec":     repo,
	})
	ks := map[string]any{
		"interval":  g.Interval,
		"sourceRef": map[string]any{"kind": "OCIRepository", "name": name},
		"path":      fluxPath(g.Addon.KustomizeRoot()),
		"prune":     true,
		"wait":      true,
		"timeout":   "5m",
	}
	if g.TargetNamespace != "" {
		ks["targetNamespace"] = g.TargetNamespace
	}
	if len(g.Edits.Patches) > 0 {
		ks["patches"] = g.Edits.Patches
	}
	if len(g.Edits.Components) > 0 {
		ks["components"] = g.Edits.Components
	}
	if len(g.DependsOn) > 0 {
		var deps []any
		for _, d := range g.DependsOn {
			deps = append(deps, map[string]any{"name": d})
		}
		ks["dependsOn"] = deps
	}
	docs = append(docs, map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": meta(name, g.Namespace, g.Addon),
		"spec":     ks,
	})
	return YAMLStream(docs...)
}

// ArgoCD returns an Argo CD Application with an OCI source pinned by digest.
// Argo CD reads artifacts with exactly one layer of an allowed media type,
// which addonpack artifacts are. With g.Plugin the source names that
// plugin, which verifies and renders the reference itself.
func ArgoCD(g GitOps) ([]byte, error) {
	if g.Ref.Digest == "" {
		return nil, fmt.Errorf("%s: Argo CD objects need a reference pinned by digest", g.Ref)
	}
	g = g.defaults("argocd")
	dest := map[string]any{"server": "https://kubernetes.default.svc"}
	if g.TargetNamespace != "" {
		dest["namespace"] = g.TargetNamespace
	}
	m := meta(g.Addon.Metadata.Name, g.Namespace, g.Addon)
	if g.SyncWave != "" {
		m["annotations"] = map[string]any{"argocd.argoproj.io/sync-wave": g.SyncWave}
	}
	source := map[string]any{
		"repoURL":        g.url(),
		"targetRevision": g.Ref.Digest.String(),
		"path":           path.Clean(g.Addon.KustomizeRoot()),
	}
	if kust := g.Edits.argoCD(); kust != nil {
		source["kustomize"] = kust
	}
	if g.Plugin != "" {
		env := []any{map[string]any{"name": PluginRefEnv, "value": g.Ref.Repo() + "@" + g.Ref.Digest.String()}}
		if len(g.Values) > 0 {
			env = append(env, map[string]any{"name": PluginValuesEnv, "value": string(g.Values)})
		}
		source["plugin"] = map[string]any{"name": g.Plugin, "env": env}
	}
	app := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": m,
		"spec": map[string]any{
			"project":     "default",
			"source":      source,
			"destination": dest,
			"syncPolicy": map[string]any{
				"automated":   map[string]any{"prune": true, "selfHeal": true},
				"syncOptions": []any{"ServerSideApply=true", "CreateNamespace=true"},
			},
		},
	}
	return YAMLStream(app)
}

// argoCD is the Application's source.kustomize for e, or nil.
func (e Edits) argoCD() map[string]any {
	kust := map[string]any{}
	if len(e.Patches) > 0 {
		kust["patches"] = e.Patches
	}
	if len(e.Components) > 0 {
		kust["components"] = e.Components
	}
	if len(kust) == 0 {
		return nil
	}
	return kust
}

// fluxPath is the kustomization directory as Flux writes it: "./" or "./deploy".
func fluxPath(root string) string {
	if root = path.Clean(root); root == "." {
		return "./"
	}
	return "./" + root
}

func meta(name, namespace string, a *spec.Addon) map[string]any {
	return map[string]any{
		"name":      name,
		"namespace": namespace,
		"labels": map[string]any{
			"app.kubernetes.io/name":       a.Metadata.Name,
			"app.kubernetes.io/version":    a.Spec.Version,
			"app.kubernetes.io/managed-by": "addonpack",
		},
	}
}

// YAMLStream writes docs as one YAML stream ("---" between documents);
// pkg/policyexport writes its objects with it too.
func YAMLStream(docs ...any) ([]byte, error) {
	var buf bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		y, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		buf.Write(y)
	}
	return buf.Bytes(), nil
}

// Tools are the controllers For writes objects for.
var Tools = []string{"flux", "argocd"}

// CheckTool refuses a tool For does not know, with ErrFormat.
func CheckTool(tool string) error {
	if !slices.Contains(Tools, tool) {
		return fmt.Errorf("--for %q: want flux or argocd: %w", tool, ErrFormat)
	}
	return nil
}

// For returns the objects tool ("flux" or "argocd") needs: Flux or ArgoCD.
func For(tool string, g GitOps) ([]byte, error) {
	if err := CheckTool(tool); err != nil {
		return nil, err
	}
	if tool == "flux" {
		return Flux(g)
	}
	return ArgoCD(g)
}
