package render

import (
	"bytes"
	"fmt"
	"slices"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Images returns the sorted, de-duplicated container images referenced by
// rendered YAML (such as Build's output): every non-empty `image` string of
// the elements of `containers`, `initContainers` and `ephemeralContainers`
// lists found anywhere in each object. This covers Pods, Deployments,
// StatefulSets, DaemonSets, Jobs, ReplicaSets, CronJobs (whose pod template
// is nested in a job template) and any custom resource embedding a pod
// template or pod spec. Lists (kind: List) are searched too.
func Images(rendered []byte) ([]string, error) {
	r := kio.ByteReader{
		Reader:                bytes.NewReader(rendered),
		OmitReaderAnnotations: true,
		DisableUnwrapping:     true,
		AnchorsAweigh:         true,
	}
	nodes, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("reading rendered YAML: %w", err)
	}
	seen := map[string]bool{}
	for _, n := range nodes {
		collectImages(n.YNode(), seen)
	}
	images := make([]string, 0, len(seen))
	for img := range seen {
		images = append(images, img)
	}
	slices.Sort(images)
	return images, nil
}

// collectImages adds to seen the images of every container list under n.
func collectImages(n *yaml.Node, seen map[string]bool) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			collectImages(c, seen)
		}
	case yaml.AliasNode:
		// Replaced by the reader (AnchorsAweigh); never followed here.
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if isContainerList(key.Value) && val.Kind == yaml.SequenceNode {
				for _, c := range val.Content {
					if img := imageOf(c); img != "" {
						seen[img] = true
					}
				}
			}
			collectImages(val, seen)
		}
	}
}

func isContainerList(key string) bool {
	switch key {
	case "containers", "initContainers", "ephemeralContainers":
		return true
	}
	return false
}

// imageOf returns the `image` string of a container mapping, or "".
func imageOf(c *yaml.Node) string {
	if c.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(c.Content); i += 2 {
		if k, v := c.Content[i], c.Content[i+1]; k.Value == "image" && v.Kind == yaml.ScalarNode && v.Tag != yaml.NodeTagNull {
			return v.Value
		}
	}
	return ""
}

// HasKind reports whether the rendered YAML holds an object of the given
// apiVersion and kind.
func HasKind(rendered []byte, apiVersion, kind string) (bool, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(rendered), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return false, err
	}
	for _, n := range nodes {
		if n.GetApiVersion() == apiVersion && n.GetKind() == kind {
			return true, nil
		}
	}
	return false, nil
}
