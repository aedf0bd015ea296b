package render

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// configFileBase names the file the config object is written to, in the root
// kustomization's directory ("addonpack-config.yaml", or with a numeric
// suffix if the package already has such a file).
const configFileBase = "addonpack-config"

// inject edits the in-memory copy of the root kustomization: the config
// object, annotated as local config, is appended to its resources, and the
// requested components to its components. The package files themselves
// (Input.Files) are never modified. It returns the paths it wrote.
func inject(tree *pkgTree, root, kfile string, config []byte, components []string, images []Image, patches []Patch) (written []string, err error) {
	if len(bytes.TrimSpace(config)) == 0 && len(components) == 0 && len(images) == 0 && len(patches) == 0 {
		return nil, nil
	}
	defer func() {
		if err != nil {
			written = nil
		}
	}()
	data, err := tree.read(kfile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	kust, err := yaml.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	if kust.YNode().Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a YAML mapping", kfile)
	}
	if len(bytes.TrimSpace(config)) > 0 {
		obj, err := configObject(config)
		if err != nil {
			return nil, err
		}
		listed, err := packedConfig(tree, kust, root, []byte(obj))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kfile, err)
		}
		if listed != "" {
			// The package lists its defaults as a resource, so that it
			// builds standalone; the resolved object takes its place.
			if err := tree.write(listed, []byte(obj)); err != nil {
				return nil, fmt.Errorf("writing config object: %w", err)
			}
			written = append(written, listed)
		} else {
			name := configFileName(tree, root)
			if err := tree.write(path.Join(root, name), []byte(obj)); err != nil {
				return nil, fmt.Errorf("writing config object: %w", err)
			}
			written = append(written, path.Join(root, name))
			if err := appendToList(kust, "resources", name); err != nil {
				return nil, fmt.Errorf("%s: %w", kfile, err)
			}
		}
	}
	if len(components) > 0 {
		existing, err := listValues(kust, "components")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kfile, err)
		}
		seen := map[string]bool{}
		for _, e := range existing {
			seen[path.Clean(e)] = true
		}
		var add []string
		for i, c := range components {
			field := fmt.Sprintf("Input.Components[%d]", i)
			rel, err := refPath(root, "", field, c)
			if err != nil {
				return nil, err
			}
			if !tree.dir(rel) {
				return nil, missingInPackage("", field, c)
			}
			if clean := path.Clean(c); !seen[clean] {
				seen[clean] = true
				add = append(add, clean)
			}
		}
		if err := appendToList(kust, "components", add...); err != nil {
			return nil, fmt.Errorf("%s: %w", kfile, err)
		}
	}
	if err := appendImages(kust, images); err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	if err := appendPatches(kust, patches); err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	out, err := kust.String()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kfile, err)
	}
	return append(written, kfile), tree.write(kfile, []byte(out))
}

// configObject parses the config object, checks it is one Kubernetes-style
// object, and marks it as local config so that kustomize drops it from the
// output after the replacements have read it.
func configObject(config []byte) (string, error) {
	if err := scanYAML("config object", config); err != nil {
		return "", err
	}
	nodes, err := readObjects(config)
	if err != nil {
		return "", fmt.Errorf("config object: %w", err)
	}
	if len(nodes) != 1 {
		return "", fmt.Errorf("config object: want exactly one YAML document, got %d", len(nodes))
	}
	n := nodes[0]
	if n.YNode().Kind != yaml.MappingNode {
		return "", fmt.Errorf("config object: not a YAML mapping")
	}
	if n.GetApiVersion() == "" || n.GetKind() == "" || n.GetName() == "" {
		return "", fmt.Errorf("config object: apiVersion, kind and metadata.name are required")
	}
	if err := n.PipeE(yaml.SetAnnotation(konfig.IgnoredByKustomizeAnnotation, "true")); err != nil {
		return "", fmt.Errorf("config object: %w", err)
	}
	s, err := n.String()
	if err != nil {
		return "", fmt.Errorf("config object: %w", err)
	}
	return s, nil
}

// configFileName picks a file name in dir root that the package does not use.
func configFileName(tree *pkgTree, root string) string {
	name := configFileBase + ".yaml"
	for i := 1; tree.exists(path.Join(root, name)); i++ {
		name = fmt.Sprintf("%s-%d.yaml", configFileBase, i)
	}
	return name
}

// field returns the value node of m's key, matched case-insensitively as
// kustomize's JSON decoding does ("Resources:" sets resources), or nil if the
// key is missing or null.
func field(m *yaml.RNode, key string) (*yaml.Node, error) {
	var found *yaml.Node
	c := m.YNode().Content
	for i := 0; i+1 < len(c); i += 2 {
		if strings.EqualFold(c[i].Value, key) {
			if found != nil {
				return nil, fmt.Errorf("%s: set more than once", key)
			}
			found = c[i+1]
		}
	}
	if found == nil || found.Tag == yaml.NodeTagNull {
		return nil, nil
	}
	if found.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: not a list", key)
	}
	return found, nil
}

// listValues returns the string elements of the list field key of m.
func listValues(m *yaml.RNode, key string) ([]string, error) {
	seq, err := field(m, key)
	if err != nil || seq == nil {
		return nil, err
	}
	return scalars(seq), nil
}

// appendToList appends scalar values to the list field key of m, creating
// the field if it is missing or null.
func appendToList(m *yaml.RNode, key string, values ...string) error {
	if len(values) == 0 {
		return nil
	}
	seq, err := field(m, key)
	if err != nil {
		return err
	}
	if seq == nil {
		// Drop a null-valued key (any case) before setting the list.
		c := m.YNode().Content
		for i := 0; i+1 < len(c); i += 2 {
			if strings.EqualFold(c[i].Value, key) {
				m.YNode().Content = append(c[:i:i], c[i+2:]...)
				break
			}
		}
		return m.PipeE(yaml.SetField(key, yaml.NewListRNode(values...)))
	}
	for _, v := range values {
		seq.Content = append(seq.Content, yaml.NewStringRNode(v).YNode())
	}
	return nil
}

// packedConfig returns the package path of a file listed in the root
// kustomization's resources that holds exactly one object of the config
// object's apiVersion and kind (the packed defaults), or "".
func packedConfig(tree *pkgTree, kust *yaml.RNode, root string, config []byte) (string, error) {
	want, err := readObjects(config)
	if err != nil || len(want) != 1 {
		return "", err
	}
	entries, err := listValues(kust, "resources")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		p, ok := resolve(root, e)
		if !ok || !tree.file(p) {
			continue
		}
		data, err := tree.read(p)
		if err != nil {
			return "", err
		}
		nodes, err := readObjects(data)
		if err != nil || len(nodes) != 1 {
			continue
		}
		if nodes[0].GetApiVersion() == want[0].GetApiVersion() && nodes[0].GetKind() == want[0].GetKind() {
			return p, nil
		}
	}
	return "", nil
}

// Image is one kustomize `images` entry: references to Name become
// NewName (and, when set, pinned to Digest).
type Image struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// appendImages appends images entries to the images list of m.
func appendImages(m *yaml.RNode, images []Image) error {
	var entries []*yaml.RNode
	for _, img := range images {
		entry, err := stringMap([][2]string{{"name", img.Name}, {"newName", img.NewName}, {"digest", img.Digest}})
		if err != nil {
			return err
		}
		entries = append(entries, entry)
	}
	return appendNodes(m, "images", entries)
}

// stringMap is a mapping of the fields whose values are not empty, in order.
func stringMap(fields [][2]string) (*yaml.RNode, error) {
	m := yaml.NewMapRNode(nil)
	for _, kv := range fields {
		if kv[1] != "" {
			if err := m.PipeE(yaml.SetField(kv[0], yaml.NewStringRNode(kv[1]))); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// appendNodes appends entries to the list field key of m, creating the
// list if it is missing.
func appendNodes(m *yaml.RNode, key string, entries []*yaml.RNode) error {
	if len(entries) == 0 {
		return nil
	}
	seq, err := field(m, key)
	if err != nil {
		return err
	}
	if seq == nil {
		if err := m.PipeE(yaml.SetField(key, yaml.NewListRNode())); err != nil {
			return err
		}
		if seq, err = field(m, key); err != nil || seq == nil {
			return fmt.Errorf("%s: cannot create the list: %v", key, err)
		}
	}
	for _, e := range entries {
		seq.Content = append(seq.Content, e.YNode())
	}
	return nil
}
