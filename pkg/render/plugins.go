package render

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// builtinAPIVersion is the apiVersion of kustomize's builtin plugin configs
// (konfig.BuiltinPluginApiVersion); anything else needs an external plugin.
const builtinAPIVersion = "builtin"

// checkPluginEntry checks an entry of generators, transformers or
// validators. Kustomize accepts either an inline plugin config (YAML) or a
// path to a file or kustomization directory holding plugin configs.
func (c *checker) checkPluginEntry(dir, file, field, entry string) error {
	// Kustomize treats an entry that it cannot parse as inline configs as a
	// path, possibly a git URL: an entry whose first line looks remote is
	// checked as a path even if it parses here.
	firstLine, _, _ := strings.Cut(entry, "\n")
	if nodes, ok := inlineConfigs(entry); ok && !looksRemote(firstLine) {
		return checkPluginConfigs(file, field, "", nodes)
	}
	if err := c.checkRef(dir, file, field, entry); err != nil {
		return err
	}
	rel, _ := resolve(dir, entry)
	if !c.tree.file(rel) {
		// A kustomization directory: checked by checkRef; kustomize
		// itself refuses non-builtin configs it produces.
		return nil
	}
	data, err := c.tree.read(rel)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", file, field, err)
	}
	nodes, err := readObjects(data)
	if err != nil {
		// Kustomize will report the malformed file.
		return nil
	}
	return checkPluginConfigs(file, field, entry, nodes)
}

// inlineConfigs parses entry as inline plugin configs: one or more YAML
// mappings with a kind. A plain path does not parse that way.
func inlineConfigs(entry string) ([]*yaml.RNode, bool) {
	nodes, err := readObjects([]byte(entry))
	if err != nil || len(nodes) == 0 {
		return nil, false
	}
	for _, n := range nodes {
		if n.YNode().Kind != yaml.MappingNode || n.GetKind() == "" {
			return nil, false
		}
	}
	return nodes, true
}

// readObjects parses a multi-document YAML stream without adding kio's
// bookkeeping annotations, keeping Lists wrapped, and replacing aliases with
// their anchors' values as kustomize does (so "path: *url" is seen).
func readObjects(data []byte) ([]*yaml.RNode, error) {
	r := kio.ByteReader{
		Reader:                bytes.NewReader(data),
		OmitReaderAnnotations: true,
		DisableUnwrapping:     true,
		AnchorsAweigh:         true,
	}
	return r.Read()
}

// checkPluginConfigs refuses configs that are not builtin plugins, helm
// inflation, and builtin configs that would load a file over http.
func checkPluginConfigs(file, field, value string, nodes []*yaml.RNode) error {
	for _, n := range nodes {
		if n.YNode().Kind != yaml.MappingNode {
			continue
		}
		kind, apiVersion := n.GetKind(), n.GetApiVersion()
		if strings.HasSuffix(kind, "List") {
			// Kustomize inlines the items of any FooList.
			items, err := n.Pipe(yaml.Lookup("items"))
			if err == nil && items != nil {
				elems, _ := items.Elements()
				if err := checkPluginConfigs(file, field, value, elems); err != nil {
					return err
				}
				continue
			}
		}
		if kind == "HelmChartInflationGenerator" {
			return &RefusedError{File: file, Field: field, Value: value, Reason: "HelmChartInflationGenerator", Err: ErrHelm}
		}
		if apiVersion != builtinAPIVersion {
			return &RefusedError{File: file, Field: field, Value: value,
				Reason: fmt.Sprintf("%s %q (apiVersion %q) is not a builtin plugin", role(field), kind, apiVersion),
				Err:    ErrPlugin}
		}
		if url := findLoadedURL(n.YNode()); url != "" {
			return notInPackage(file, field, url, fmt.Sprintf("loaded by builtin %s", kind))
		}
	}
	return nil
}

// loadedKeys reports whether key is a field of builtin plugin configs that
// kustomize reads as file paths through its loader (which fetches http URLs).
func loadedKeys(key string) bool {
	switch key {
	case "path", "paths", "files", "envs", "env", "targetFilePath",
		"valuesFile", "additionalValuesFiles", "argsFromFile":
		return true
	}
	return false
}

// findLoadedURL returns the first URL found under a loaded key anywhere in
// the node, or "".
func findLoadedURL(n *yaml.Node) string {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if u := findLoadedURL(c); u != "" {
				return u
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if loadedKeys(k.Value) {
				for _, s := range scalars(v) {
					if remoteValue(s) {
						return s
					}
				}
			}
			if u := findLoadedURL(v); u != "" {
				return u
			}
		}
	}
	return ""
}

// scalars returns n's value if it is a scalar, or the scalar elements of a
// sequence.
func scalars(n *yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				out = append(out, c.Value)
			}
		}
		return out
	}
	return nil
}

// role turns a field such as "transformers[0]" into "transformer".
func role(field string) string {
	name, _, _ := strings.Cut(field, "[")
	return strings.TrimSuffix(name, "s")
}
