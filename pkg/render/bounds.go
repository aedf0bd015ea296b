package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrYAMLLimit is wrapped by the error for a file the render reads that is
// over the YAML bounds (specs/artifact.md section 9): too large, nested too
// deeply, or with aliases that expand too far (an "alias bomb") or refer to
// their own anchor.
var ErrYAMLLimit = errdef.New(errdef.ErrInvalid, "YAML exceeds the render bounds")

// The YAML bounds. Kustomize (kyaml, and goyaml under it) expands aliases
// and recurses over nesting without any bound of its own: a 644-byte alias
// bomb grows past gigabytes, and a mapping nested 9,000 deep takes most of
// a minute. So every file the render reads is scanned first, in time and
// memory linear in its size, and refused when it is over these bounds.
const (
	// MaxYAMLFileSize bounds one file the render reads (16 MiB): far above
	// any manifest or CRD bundle, and the 1 MiB a ConfigMap may hold.
	MaxYAMLFileSize = 16 << 20
	// MaxYAMLDepth bounds the nesting of mappings and sequences in one
	// document, counted through aliases. The deepest CRD schemas nest a few
	// dozen levels.
	MaxYAMLDepth = 200
	// YAMLAliasAllowance is how many nodes aliases may add to a document
	// beyond its own size: once expanded, a document may hold at most
	// 2 × its own nodes + YAMLAliasAllowance.
	YAMLAliasAllowance = 10000
)

// scanYAML checks that every YAML document of data (the file name, for
// messages) is within the YAML bounds. Data that is not YAML (a generator's
// .properties or binary file, or YAML with a syntax error, which kustomize
// reports itself if it parses the file) passes: the parse stops at the
// first error, and each document before it was checked.
func scanYAML(name string, data []byte) error {
	if len(data) > MaxYAMLFileSize {
		return fmt.Errorf("%s: more than %d bytes: %w", name, MaxYAMLFileSize, ErrYAMLLimit)
	}
	if !mayNest(data) {
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return nil // not YAML after all; see above
		}
		s := yamlScan{memo: map[*yaml.Node]extent{}, active: map[*yaml.Node]bool{}}
		if err := s.check(&n); err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
	}
}

// readBounded reads the package file p, at most one byte more than
// MaxYAMLFileSize, so that scanYAML refuses a larger file unread.
func readBounded(files fs.FS, p string) ([]byte, error) {
	f, err := files.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxYAMLFileSize+1))
}

// readScanned reads the package file p once it is within the YAML bounds.
func readScanned(files fs.FS, p string) ([]byte, error) {
	data, err := readBounded(files, p)
	if err != nil {
		return nil, err
	}
	return data, scanYAML(p, data)
}

// mayNest reports whether data could hold an alias or nest deeper than
// MaxYAMLDepth, so that most files need no parse. An alias needs a '*', and
// a flow collection a '[' or '{', where the scanner may start a token
// (tokenStart). Each level of block nesting needs a column of indentation or
// a "-", "?" or ":" indicator in the run of them that begins its line (a
// mapping and the sequence it holds may share one column, hence the half);
// the spaces between the words of a long description do not nest. A '[' or
// '*' inside a scalar, such as the [a-z0-9]* of the patterns CRD schemas are
// full of, is no token: counting those made every CRD pay a full YAML parse
// before kustomize parsed it again. FuzzScanYAML checks that what passes
// here is within the bounds, FuzzMayAlias that it holds no alias.
func mayNest(data []byte) bool {
	const half = MaxYAMLDepth / 2
	brackets, run, lineStart := 0, 0, true
	for i, b := range data {
		switch {
		case b == '\n' || b == '\r':
			run, lineStart = 0, true
			continue
		case lineStart && (b == ' ' || b == '\t' || b == '-' || b == '?' || b == ':'):
			if run++; run > half {
				return true
			}
			continue
		}
		lineStart = false
		switch b {
		case '*':
			if tokenStart(data, i) {
				return true
			}
		case '[', '{':
			if tokenStart(data, i) {
				if brackets++; brackets > half {
					return true
				}
			}
		}
	}
	return false
}

// mayAlias reports whether data could hold an alias: a '*' where a token
// may start.
func mayAlias(data []byte) bool {
	for i, b := range data {
		if b == '*' && tokenStart(data, i) {
			return true
		}
	}
	return false
}

// tokenStart reports whether the YAML scanner could start a token (an
// alias, a flow collection) at data[i]: first in the data, or after white
// space, a line break (any byte from 0x80 up, for the Unicode breaks and the
// byte order mark), '[', '{', ',', ':' or '?' (a flow entry, a value after
// a JSON-like key, an explicit key in a flow collection: [?[1]] nests).
// After any other character data[i] is inside a scalar, or
// follows a token that no node may follow directly (a closing bracket or
// quote, a plain scalar ended by a flow indicator, an anchor), where the
// parse fails and nothing is built.
func tokenStart(data []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch b := data[i-1]; {
	case b == ' ', b == '\t', b == '\n', b == '\r', b == '[', b == '{', b == ',', b == ':', b == '?', b >= 0x80:
		return true
	}
	return false
}

// extent is what one node stands for once its aliases are expanded.
type extent struct {
	nodes  int // nodes, counting each alias as a copy of its anchor's
	height int // levels of nesting below the node
}

// yamlScan measures one document. Every alias of the text adds its
// anchor's extent once, so the expanded size is own + added; the walk stops
// as soon as added passes what own allows, and never counts past it.
type yamlScan struct {
	own, added, limit int
	memo              map[*yaml.Node]extent // anchored nodes measured
	active            map[*yaml.Node]bool   // anchored nodes being measured
}

// check measures the document n and refuses it when over the bounds.
func (s *yamlScan) check(n *yaml.Node) error {
	s.own = countNodes(n)
	s.limit = s.own + YAMLAliasAllowance // expanded ≤ 2 × own + allowance
	_, err := s.measure(n, 0)
	return err
}

// countNodes counts the nodes of the text, not following aliases.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, child := range n.Content {
		c += countNodes(child)
	}
	return c
}

// measure returns n's extent at nesting level depth.
func (s *yamlScan) measure(n *yaml.Node, depth int) (extent, error) {
	if depth > MaxYAMLDepth {
		return extent{}, fmt.Errorf("line %d: nested more than %d levels deep: %w", n.Line, MaxYAMLDepth, ErrYAMLLimit)
	}
	if n.Kind == yaml.AliasNode {
		return s.alias(n, depth)
	}
	if n.Anchor != "" {
		s.active[n] = true
		defer delete(s.active, n)
	}
	e := extent{nodes: 1}
	for _, c := range n.Content {
		ce, err := s.measure(c, depth+1)
		if err != nil {
			return extent{}, err
		}
		e.nodes += ce.nodes
		e.height = max(e.height, ce.height+1)
	}
	if n.Anchor != "" {
		s.memo[n] = e
	}
	return e, nil
}

// alias returns the extent of the anchor an alias names and counts the copy.
func (s *yamlScan) alias(n *yaml.Node, depth int) (extent, error) {
	target := n.Alias
	if target == nil {
		return extent{}, nil
	}
	if s.active[target] {
		return extent{}, fmt.Errorf("line %d: alias *%s refers to its own anchor: %w", n.Line, n.Value, ErrYAMLLimit)
	}
	e, ok := s.memo[target]
	if !ok { // goyaml only lets an alias follow its anchor; be safe anyway
		var err error
		if e, err = s.measure(target, depth); err != nil {
			return extent{}, err
		}
	}
	if depth+e.height > MaxYAMLDepth {
		return extent{}, fmt.Errorf("line %d: alias *%s nests more than %d levels deep: %w", n.Line, n.Value, MaxYAMLDepth, ErrYAMLLimit)
	}
	if s.added += e.nodes; s.added > s.limit {
		return extent{}, fmt.Errorf("line %d: aliases expand the document's %d nodes past %d (twice its size plus %d): %w",
			n.Line, s.own, s.own+s.limit, YAMLAliasAllowance, ErrYAMLLimit)
	}
	return e, nil
}
