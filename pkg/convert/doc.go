// Package convert converts a user's config object of an older version of an
// add-on's config type to the current version (specs/config.md section 9):
// a linear chain of steps, each a list of declarative rules (move, rename,
// default, delete, set from a CEL expression, fail with a message).
// Conversion is a function of the object alone: CEL runs with no clock, no
// network and a cost limit, and the builder refuses expressions whose
// estimated worst-case cost exceeds it. Every value a conversion handles is
// bounded in size too (bytes and nodes, per value, per evaluation and per
// conversion: size.go), since cel-go charges list concatenation and list
// and map literals a constant, and the builder refuses chains whose static
// growth estimate shows a value can be copied into itself rule after rule
// (growth.go).
//
// This is the only package that imports cel-go (internal/depcheck).
package convert
