package render

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Check runs the kustomization at in.Root exactly as Build does and returns
// the sorted, de-duplicated images of the output (as Images(Build(in)) would),
// without encoding the output: the builder only needs to know that the
// package renders and which images it uses.
//
// Build encodes each resource through kustomize's Resource.AsYAML (a deep
// copy to resolve YAML anchors, then JSON). Check walks each resource's node
// tree instead, and falls back to AsYAML for a resource whose tree holds
// anything that encoding could reject or change (anchors, aliases, merge
// keys, non-string keys, unusual tags, infinite or NaN floats), so that an
// error Build would report is reported here too.
func Check(ctx context.Context, in Input) ([]string, error) {
	return guarded(ctx, in, check)
}

func check(ctx context.Context, in Input, root string) ([]string, error) {
	tree, c, _, err := prepare(in, root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = runWith(ctx, tree, root, c.openAPI, func(m resmap.ResMap) error {
		for _, r := range m.Resources() {
			n := r.RNode.YNode()
			if plainJSON(n) {
				collectImages(n, seen)
				continue
			}
			out, err := r.AsYAML()
			if err != nil {
				return fmt.Errorf("encoding output: %w", err)
			}
			more, err := Images(out)
			if err != nil {
				return err
			}
			for _, img := range more {
				seen[img] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	images := make([]string, 0, len(seen))
	for img := range seen {
		images = append(images, img)
	}
	slices.Sort(images)
	return images, nil
}

// plainJSON reports whether n is a tree that kustomize's encoding (yaml.v3
// to JSON, then sigs.k8s.io/yaml, which re-reads the JSON with goyaml.v2)
// takes as it is: no anchors or aliases (which it would copy and resolve), no
// merge keys, only distinct string keys short enough for goyaml.v2's
// simple-key limit once JSON-escaped, nesting well inside its depth limit,
// valid UTF-8, only the core schema's scalar tags matching their values, no
// float JSON cannot hold, and only string images (an unquoted 1.0 would come
// out as 1). FuzzPlainJSON checks that AsYAML never fails on a tree for which
// it is true, and that the images agree.
func plainJSON(n *yaml.Node) bool { return plain(n, 0, false) }

const (
	maxPlainDepth  = 1000 // goyaml.v2 refuses 10,000 levels
	maxPlainKeyLen = 1000 // goyaml.v2 wants a simple key within 1,024 bytes
)

func plain(n *yaml.Node, depth int, image bool) bool {
	if n.Anchor != "" || depth > maxPlainDepth {
		return false
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if !plain(c, depth+1, false) {
				return false
			}
		}
		return n.Kind == yaml.DocumentNode || n.Tag == "" || n.Tag == yaml.NodeTagSeq
	case yaml.MappingNode:
		if n.Tag != "" && n.Tag != yaml.NodeTagMap {
			return false
		}
		keys := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Anchor != "" || k.ShortTag() != yaml.NodeTagString || k.Value == "<<" || keys[k.Value] || !shortJSONKey(k.Value) {
				return false
			}
			keys[k.Value] = true
			if !plain(n.Content[i+1], depth+1, k.Value == "image") {
				return false
			}
		}
		return len(n.Content)%2 == 0
	case yaml.ScalarNode:
		if !utf8.ValidString(n.Value) {
			return false
		}
		switch tag := n.ShortTag(); tag {
		case yaml.NodeTagString:
			return true
		case yaml.NodeTagInt, yaml.NodeTagBool, yaml.NodeTagNull, yaml.NodeTagFloat:
			// An image must be a string as written; other values must be
			// what the tag says (a tag set by hand or by a transformer may
			// not be), and a float must be finite.
			plain := yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
			return !image && plain.ShortTag() == tag && (tag != yaml.NodeTagFloat || finiteFloat(n.Value))
		}
		return false
	}
	return false // aliases and anything unknown
}

// shortJSONKey reports whether key, as encoding/json writes it (quoted, with
// <, >, &, control characters and U+2028/9 escaped: at most six bytes per
// input byte), stays within maxPlainKeyLen.
func shortJSONKey(key string) bool {
	if 6*len(key)+2 <= maxPlainKeyLen {
		return true
	}
	b, err := json.Marshal(key)
	return err == nil && len(b) <= maxPlainKeyLen
}

// finiteFloat reports whether a !!float scalar is not one of YAML's
// infinities or NaN.
func finiteFloat(v string) bool {
	switch v {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return false
	}
	return true
}
