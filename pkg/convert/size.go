package convert

import (
	"fmt"
	"unicode/utf8"
)

// The value-size bounds of specs/config.md section 9.4.1. The cost limit
// bounds work, not size: cel-go charges list concatenation and list and map
// literals a constant, so `{'a': spec.m, 'b': spec.m}` doubles a value for a
// few units and 30 such rules build one of 2^30 nodes.
const (
	// MaxValueBytes bounds the JSON encoding of one value: the spec handed
	// to an evaluation, an expression's result, the converted spec. The API
	// server refuses request bodies over 3 MiB; a config object is rendered
	// into such objects.
	MaxValueBytes = 4 << 20
	// MaxValueNodes bounds the objects, arrays and scalars of one value: a
	// node costs a Go program about ten times its JSON bytes.
	MaxValueNodes = 200_000
	// MaxValueDepth bounds the nesting of one value (the YAML reader
	// already refuses 200 levels).
	MaxValueDepth = 256
	// MaxConversionBytes and MaxConversionNodes bound what one conversion
	// materialises in all: every evaluation copies the spec, and every
	// result is built.
	MaxConversionBytes = 64 << 20
	MaxConversionNodes = 4_000_000
	// MaxEvalSize bounds every value built during one evaluation, in
	// cel-go's aggregate units (a unit per byte of a string, one per other
	// node): a value within MaxValueBytes and MaxValueNodes is within it.
	MaxEvalSize = MaxValueBytes + MaxValueNodes
)

// budget is what one conversion has spent so far.
type budget struct {
	cost         uint64 // CEL cost units
	bytes, nodes int64  // of every value materialised
}

// meter measures one value while it is walked, and fails as soon as the
// value or the conversion passes a bound, so that nothing larger than a
// bound is ever built.
type meter struct {
	what         string // "the spec", "the result", for errors
	bytes, nodes int64
	b            *budget
}

func newMeter(what string, b *budget) *meter { return &meter{what: what, b: b} }

// add counts a node of n JSON bytes (its punctuation included).
func (m *meter) add(nodes, n int64) error {
	m.bytes += n
	m.nodes += nodes
	m.b.bytes += n
	m.b.nodes += nodes
	switch {
	case m.bytes > MaxValueBytes:
		return fmt.Errorf("%s is larger than %d bytes as JSON, the limit of one value", m.what, MaxValueBytes)
	case m.nodes > MaxValueNodes:
		return fmt.Errorf("%s is larger than %d nodes, the limit of one value", m.what, MaxValueNodes)
	case m.b.bytes > MaxConversionBytes:
		return fmt.Errorf("%s takes the values of the conversion over %d bytes together, the limit of one conversion", m.what, MaxConversionBytes)
	case m.b.nodes > MaxConversionNodes:
		return fmt.Errorf("%s takes the values of the conversion over %d nodes together, the limit of one conversion", m.what, MaxConversionNodes)
	}
	return nil
}

// enter checks the depth of a container about to be walked, 0 for the
// value itself.
func (m *meter) enter(depth int) error {
	if depth >= MaxValueDepth {
		return fmt.Errorf("%s is nested deeper than %d levels, the limit of one value", m.what, MaxValueDepth)
	}
	return nil
}

// container counts an object or array of n entries: its brackets and the
// commas between entries.
func (m *meter) container(n int) error {
	c := int64(2)
	if n > 1 {
		c += int64(n - 1)
	}
	return m.add(1, c)
}

// key counts an object key, its quotes and colon; not a node.
func (m *meter) key(k string) error { return m.add(0, jsonStringLen(k)+1) }

// jsonStringLen is the length of s as encoding/json writes it, quotes
// included: HTML characters, U+2028, U+2029 and invalid UTF-8 as \uXXXX.
func jsonStringLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}
