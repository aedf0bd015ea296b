package render

import (
	"bytes"
	"encoding/json"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/yaml"
)

// ToJSON turns rendered YAML into one indented JSON "v1 List", which
// `kubectl apply -f` accepts.
func ToJSON(rendered []byte) ([]byte, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(rendered), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, err
	}
	items := make([]json.RawMessage, 0, len(nodes))
	for _, n := range nodes {
		s, err := n.String()
		if err != nil {
			return nil, err
		}
		js, err := yaml.YAMLToJSON([]byte(s))
		if err != nil {
			return nil, err
		}
		items = append(items, js)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(list); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
