//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// standIn plays, for the namespaces named, the two parts of a cluster this
// suite does not run: the Deployment controller and kubelet (no Pod ever
// runs here), and the webhook backends those Pods would serve.
//   - A Deployment it sees is given the status a rolled-out one has
//     (observedGeneration, all replicas updated, ready and available, the
//     Available and Progressing conditions), so `kubectl rollout status` and
//     Flux's health checks see it done.
//   - An admission webhook that calls a Service of one of those namespaces
//     with failurePolicy Fail is set to Ignore: its backend cannot run, and
//     with Fail it would refuse every object it matches (cert-manager's
//     refuses cert-operator's Certificate). The API server still calls it, and
//     still admits the object when the call fails.
//
// Everything else is real: the script or controller, kubectl, the API server
// and its admission. The stand-in stops when the test ends; stop() stops it
// sooner and waits for it.
func (e *env) standIn(t *testing.T, namespaces ...string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			e.rollOut(t, namespaces)
			e.ignoreWebhooks(t, namespaces)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

type deployment struct {
	Metadata struct {
		Name       string `json:"name"`
		Namespace  string `json:"namespace"`
		Generation int64  `json:"generation"`
	} `json:"metadata"`
	Spec struct {
		Replicas *int64 `json:"replicas"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration int64 `json:"observedGeneration"`
		AvailableReplicas  int64 `json:"availableReplicas"`
	} `json:"status"`
}

func (e *env) rollOut(t *testing.T, namespaces []string) {
	out, err := e.kubectlRun(t, nil, "get", "deployments", "--all-namespaces", "-o", "json")
	if err != nil {
		t.Logf("stand-in: %v", err)
		return
	}
	var list struct{ Items []deployment }
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Logf("stand-in: %v", err)
		return
	}
	for _, d := range list.Items {
		replicas := int64(1)
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		if !slices.Contains(namespaces, d.Metadata.Namespace) ||
			d.Status.ObservedGeneration == d.Metadata.Generation && d.Status.AvailableReplicas == replicas {
			continue
		}
		now := time.Now().UTC().Format(time.RFC3339)
		cond := func(typ, reason string) map[string]any {
			return map[string]any{"type": typ, "status": "True", "reason": reason, "lastUpdateTime": now, "lastTransitionTime": now,
				"message": "set by the end-to-end suite's stand-in for the Deployment controller and kubelet"}
		}
		status, _ := json.Marshal(map[string]any{"status": map[string]any{
			"observedGeneration": d.Metadata.Generation, "replicas": replicas, "updatedReplicas": replicas,
			"readyReplicas": replicas, "availableReplicas": replicas,
			"conditions": []any{cond("Available", "MinimumReplicasAvailable"), cond("Progressing", "NewReplicaSetAvailable")},
		}})
		if _, err := e.kubectlRun(t, nil, "patch", "deployment", "-n", d.Metadata.Namespace, d.Metadata.Name,
			"--subresource=status", "--type=merge", "-p", string(status)); err != nil {
			t.Logf("stand-in: %v", err)
		}
	}
}

func (e *env) ignoreWebhooks(t *testing.T, namespaces []string) {
	for _, kind := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
		out, err := e.kubectlRun(t, nil, "get", kind, "-o", "json")
		if err != nil {
			t.Logf("stand-in: %v", err)
			continue
		}
		var list struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
				Webhooks []struct {
					FailurePolicy string `json:"failurePolicy"`
					ClientConfig  struct {
						Service *struct{ Namespace string } `json:"service"`
					} `json:"clientConfig"`
				} `json:"webhooks"`
			}
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Logf("stand-in: %v", err)
			continue
		}
		for _, w := range list.Items {
			var ops []string
			for i, h := range w.Webhooks {
				if h.FailurePolicy == "Fail" && h.ClientConfig.Service != nil && slices.Contains(namespaces, h.ClientConfig.Service.Namespace) {
					ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/webhooks/%d/failurePolicy","value":"Ignore"}`, i))
				}
			}
			if len(ops) == 0 {
				continue
			}
			patch := "[" + strings.Join(ops, ",") + "]"
			if _, err := e.kubectlRun(t, nil, "patch", kind, w.Metadata.Name, "--type=json", "-p", patch); err != nil {
				t.Logf("stand-in: %v", err)
			}
		}
	}
}
