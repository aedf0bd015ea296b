package render

import (
	"bytes"
	"path"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// PlainEquivalent reports whether Build (or Check) of in builds the same
// kustomization as a plain build of the package (in.Files and in.Root, nothing
// wired in: what kubectl apply -k, Flux and Argo CD build), so that checking
// one checks the other and a second kustomize run would only repeat the
// first. That holds when in adds no components, images or patches and its
// config object, if any, replaces a resource the root kustomization already
// lists that holds the same object: the same fields with the same values and
// YAML types, key order, comments and quoting aside, the
// config.kubernetes.io/local-config: "true" annotation included (the wired
// build sets it). The two builds then differ only in how two files are
// formatted, which kustomize does not see once it has parsed them.
//
// A false answer is no error: the package may well build standalone, but
// only a plain build can tell (the packed defaults leave a field to the
// schema's defaults, enable a component, or are not listed).
func PlainEquivalent(in Input) (bool, error) {
	if len(in.Components) > 0 || len(in.Images) > 0 || len(in.Patches) > 0 {
		return false, nil
	}
	if len(bytes.TrimSpace(in.Config)) == 0 {
		return true, nil
	}
	obj, err := configObject(in.Config)
	if err != nil {
		return false, err
	}
	wired, err := readObjects([]byte(obj))
	if err != nil || len(wired) != 1 {
		return false, err
	}
	listed, _, err := PackedConfig(in.Files, path.Clean(in.Root), wired[0].GetApiVersion(), wired[0].GetKind())
	if err != nil || listed == "" {
		return false, err
	}
	data, err := readScanned(in.Files, listed)
	if err != nil {
		return false, err
	}
	packed, err := readObjects(data)
	if err != nil || len(packed) != 1 {
		return false, err
	}
	return sameNode(packed[0].YNode(), wired[0].YNode()), nil
}

// sameNode reports whether a and b are the same YAML value as kustomize sees
// it: the same kinds, tags and scalar values, mappings equal as sets of keys
// (each key once), sequences in order. Anchors and aliases are not compared:
// they make the answer false.
func sameNode(a, b *yaml.Node) bool {
	if a.Kind != b.Kind || a.Anchor != "" || b.Anchor != "" || a.ShortTag() != b.ShortTag() {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.Value == b.Value
	case yaml.DocumentNode, yaml.SequenceNode:
		if len(a.Content) != len(b.Content) {
			return false
		}
		for i := range a.Content {
			if !sameNode(a.Content[i], b.Content[i]) {
				return false
			}
		}
		return true
	case yaml.MappingNode:
		am, ok := mappingByKey(a)
		if !ok {
			return false
		}
		bm, ok := mappingByKey(b)
		if !ok || len(am) != len(bm) {
			return false
		}
		for k, av := range am {
			bv, ok := bm[k]
			if !ok || !sameNode(av, bv) {
				return false
			}
		}
		return true
	}
	return false // aliases and anything unknown
}

// mappingByKey indexes a mapping's values by their plain string keys; false
// for a key that is not a plain string scalar, or a repeated one.
func mappingByKey(n *yaml.Node) (map[string]*yaml.Node, bool) {
	if len(n.Content)%2 != 0 {
		return nil, false
	}
	m := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.ShortTag() != yaml.NodeTagString || k.Value == "<<" {
			return nil, false
		}
		if _, dup := m[k.Value]; dup {
			return nil, false
		}
		m[k.Value] = n.Content[i+1]
	}
	return m, true
}
