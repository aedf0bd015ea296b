package policyexport

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Where the Argo CD plugin sidecar finds things.
const (
	// PolicyDir holds the self-contained policy and its trusted roots.
	PolicyDir = "/home/argocd/addonpack"
	// DefaultImage is the addonpack image the sidecar runs by default.
	DefaultImage = "ghcr.io/addonpack/addonpack:latest"
	// RefEnv and ValuesEnv are the plugin's parameters, set by the
	// Application (source.plugin.env; Argo CD prefixes them ARGOCD_ENV_).
	RefEnv    = deliver.PluginRefEnv
	ValuesEnv = deliver.PluginValuesEnv
)

// generateScript is the plugin's generate command: addonpack verifies the
// reference under the full policy and renders it. The source Argo CD
// fetched is not read: the reference is fetched again by digest.
const generateScript = `set -eu
if [ -n "${ARGOCD_ENV_` + ValuesEnv + `:-}" ]; then
  printf '%s\n' "$ARGOCD_ENV_` + ValuesEnv + `" | exec addonpack render "$ARGOCD_ENV_` + RefEnv + `" --policy ` + PolicyDir + `/policy.yaml --values -
fi
exec addonpack render "$ARGOCD_ENV_` + RefEnv + `" --policy ` + PolicyDir + `/policy.yaml
`

// argoCD writes a Config Management Plugin that runs addonpack render with
// the whole policy: nothing is lost. Files: plugin.yaml (the
// ConfigManagementPlugin), addonpack-cmp.yaml (a ConfigMap with it, the
// policy made self-contained and its trusted roots) and
// repo-server-patch.yaml (a strategic-merge patch adding the sidecar to
// argocd-repo-server).
func argoCD(p *verify.Policy, o Options) (*Result, error) {
	ns, image, plugin := o.Namespace, o.Image, o.Plugin
	if ns == "" {
		ns = "argocd"
	}
	if image == "" {
		image = DefaultImage
	}
	if plugin == "" {
		plugin = "addonpack"
	}
	policy, roots, err := selfContained(p, o.Policy, o.File)
	if err != nil {
		return nil, err
	}
	cmp := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "ConfigManagementPlugin",
		"metadata": map[string]any{"name": plugin},
		"spec": map[string]any{
			"generate": map[string]any{"command": []any{"/bin/sh", "-c"}, "args": []any{generateScript}},
		},
	}
	pluginYAML, err := deliver.YAMLStream(cmp)
	if err != nil {
		return nil, err
	}
	cmName := o.Name + "-cmp"
	data := map[string]any{"plugin.yaml": string(pluginYAML), "policy.yaml": string(policy)}
	for name, raw := range roots {
		data[name] = string(raw)
	}
	cm, err := deliver.YAMLStream(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": cmName, "namespace": ns, "labels": labels()},
		"data":     data,
	})
	if err != nil {
		return nil, err
	}
	sidecar := map[string]any{
		"name":            o.Name + "-cmp",
		"image":           image,
		"command":         []any{"/var/run/argocd/argocd-cmp-server"},
		"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": 999},
		"volumeMounts": []any{
			map[string]any{"name": "var-files", "mountPath": "/var/run/argocd"},
			map[string]any{"name": "plugins", "mountPath": "/home/argocd/cmp-server/plugins"},
			map[string]any{"name": cmName, "mountPath": "/home/argocd/cmp-server/config/plugin.yaml", "subPath": "plugin.yaml"},
			map[string]any{"name": cmName, "mountPath": PolicyDir},
			map[string]any{"name": o.Name + "-cmp-tmp", "mountPath": "/tmp"},
		},
		"env": []any{map[string]any{"name": "HOME", "value": "/tmp"}},
	}
	patch, err := deliver.YAMLStream(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "argocd-repo-server", "namespace": ns},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{sidecar},
			"volumes": []any{
				map[string]any{"name": cmName, "configMap": map[string]any{"name": cmName}},
				map[string]any{"name": o.Name + "-cmp-tmp", "emptyDir": map[string]any{}},
			},
		}}},
	})
	if err != nil {
		return nil, err
	}
	return &Result{Files: []File{
		{Name: "plugin.yaml", Data: pluginYAML},
		{Name: cmName + ".yaml", Data: cm},
		{Name: "repo-server-patch.yaml", Data: patch},
	}}, nil
}

// selfContained rewrites the policy file raw (at path file) so that it
// reads nothing beside itself: keys given by path or env:// as publicKey
// (the PEM p loaded), trusted roots as files beside it ("root-NAME.json",
// returned with their bytes). KMS references stay: the sidecar needs
// credentials for them. Keys and roots no scope or images entry uses are
// dropped (the sidecar could not load them).
func selfContained(p *verify.Policy, raw []byte, file string) ([]byte, map[string][]byte, error) {
	if len(raw) == 0 {
		return nil, nil, fmt.Errorf("%w: --for argocd needs the policy file's bytes", errdef.ErrInvalidArgument)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, nil, fmt.Errorf("policy %s: %w", file, err)
	}
	pems, rootsByName := map[string]string{}, map[string]*verify.TrustedRoot{}
	use := func(ks []verify.Key, ids []verify.Identity) {
		for _, k := range ks {
			pems[k.Name] = string(k.Verifier.PEM)
		}
		for _, id := range ids {
			rootsByName[id.Root.Name] = id.Root
		}
	}
	for _, s := range p.Scopes {
		use(s.Keys, s.Identities)
	}
	for _, r := range p.Images {
		use(r.Keys, r.Identities)
	}
	var keys []any
	for _, k := range list(doc["keys"]) {
		m, _ := k.(map[string]any)
		name, _ := m["name"].(string)
		ref, _ := m["ref"].(string)
		pem, used := pems[name]
		switch {
		case !used:
			continue
		case m["path"] != nil || strings.HasPrefix(ref, "env://"):
			delete(m, "path")
			delete(m, "ref")
			m["publicKey"] = pem
		}
		keys = append(keys, m)
	}
	setOrDelete(doc, "keys", keys)
	roots := map[string][]byte{}
	var trs []any
	for _, r := range list(doc["trustedRoots"]) {
		m, _ := r.(map[string]any)
		name, _ := m["name"].(string)
		tr, used := rootsByName[name]
		if !used {
			continue
		}
		fn := "root-" + name + ".json"
		m["path"] = fn
		roots[fn] = tr.Bytes()
		trs = append(trs, m)
	}
	setOrDelete(doc, "trustedRoots", trs)
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, nil, err
	}
	header := fmt.Sprintf("# %s, made self-contained by addonpack policy export --for argocd\n", filepath.Base(file))
	return append([]byte(header), out...), roots, nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return slices.Clone(l)
}

func setOrDelete(doc map[string]any, key string, v []any) {
	if len(v) == 0 {
		delete(doc, key)
		return
	}
	doc[key] = v
}
