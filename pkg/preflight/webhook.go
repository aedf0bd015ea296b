package preflight

import (
	"encoding/json"
	"fmt"
)

// webhookWarnings warns of an admission webhook (or an aggregated API)
// whose backend Service is in the same add-on: until the add-on's pods run,
// the API server cannot call it, and every apply the webhook matches is
// refused (an aggregated API makes discovery of its group fail). Applying
// such a configuration last, or waiting for its Deployment, avoids that;
// the apply of the add-on itself is not checked by it, so it is a warning.
func webhookWarnings(objs []object) []Finding {
	services := map[string]bool{}
	for _, o := range objs {
		if o.APIVersion == "v1" && o.Kind == "Service" {
			services[o.Metadata.Namespace+"/"+o.Metadata.Name] = true
		}
	}
	type ref struct {
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	}
	var out []Finding
	for _, o := range objs {
		var refs []ref
		switch o.gvk() {
		case gvk{"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration"},
			gvk{"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"}:
			var doc struct {
				Webhooks []struct {
					ClientConfig struct {
						Service *ref `json:"service"`
					} `json:"clientConfig"`
				} `json:"webhooks"`
			}
			if json.Unmarshal(o.raw, &doc) != nil {
				continue
			}
			for _, w := range doc.Webhooks {
				if w.ClientConfig.Service != nil {
					refs = append(refs, *w.ClientConfig.Service)
				}
			}
		case gvk{"apiregistration.k8s.io", "v1", "APIService"}:
			var doc struct {
				Spec struct {
					Service *ref `json:"service"`
				} `json:"spec"`
			}
			if json.Unmarshal(o.raw, &doc) == nil && doc.Spec.Service != nil {
				refs = append(refs, *doc.Spec.Service)
			}
		}
		seen := map[ref]bool{}
		for _, r := range refs {
			if seen[r] || !services[r.Namespace+"/"+r.Name] {
				continue
			}
			seen[r] = true
			out = append(out, Finding{Check: CheckWebhook, Object: o.String(), Message: fmt.Sprintf(
				"calls Service %s/%s of this add-on: until its pods run, the API server cannot reach it and refuses what it matches; apply it last or wait for the backend before applying more", r.Namespace, r.Name)})
		}
	}
	return out
}
