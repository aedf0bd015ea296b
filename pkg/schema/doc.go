// Package schema compiles and applies component-config schemas for addonpack add-ons.
//
// An add-on's configuration is a versioned object (apiVersion, kind, metadata, spec),
// like a Kubernetes custom resource. Its spec is described by a structural,
// CRD-style OpenAPI v3 schema: the document that would sit under
// openAPIV3Schema.properties.spec in a CustomResourceDefinition, written in YAML
// or JSON.
//
// [Compile] parses such a document and compiles it with
// github.com/santhosh-tekuri/jsonschema/v6 (JSON Schema draft 2020-12 unless the
// document's "$schema" names draft-07 or 2019-09). OpenAPI v3 keywords that JSON
// Schema lacks are tolerated: "nullable: true" is rewritten to a type list that
// includes "null" before compiling, x-kubernetes-* extensions and "example" are
// ignored by the validator, and "format" values the validator does not know are
// not asserted. Known formats (ipv4, hostname, uri, date-time, ...) are asserted
// in every draft.
//
// Schemas are self-contained: every "$ref" must be a fragment ("#/$defs/x",
// "#anchor") within the same document. External references are refused both by
// a scan of the document and by a URL loader that refuses every URL, so
// compiling a schema never reads a file or the network.
//
// [Schema.Validate] reports every failing field with a dotted path rooted at
// "spec" (spec.upstreams[1], spec.labels["app.kubernetes.io/name"]).
// [Schema.ApplyDefaults] fills in "default" values the way the Kubernetes API
// server defaults a structural schema. [Schema.JSON] is the canonical JSON form
// of the document, suitable for packing as an OCI layer.
//
// [ParseObject] strictly decodes a config object and checks its apiVersion and
// kind. [Decode] turns one YAML or JSON document into JSON-compatible Go values
// (map[string]any, []any, string, json.Number, bool, nil), the form that
// Validate and ApplyDefaults expect.
package schema
