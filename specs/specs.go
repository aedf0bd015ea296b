// Package specs embeds the normative JSON Schemas of addonpack's formats so that
// the code validates against exactly the documents that are published.
package specs

import "embed"

// Schemas holds schemas/*.json.
//
//go:embed schemas/*.json
var Schemas embed.FS

// AddonSchemaPath is the path of the addon.yaml JSON Schema inside Schemas.
// It is the schema of addonpack.dev/v1alpha1.
const AddonSchemaPath = "schemas/addon.schema.json"

// AddonV1Alpha2SchemaPath is the JSON Schema of addon.yaml of
// addonpack.dev/v1alpha2 inside Schemas.
const AddonV1Alpha2SchemaPath = "schemas/addon.v1alpha2.schema.json"

// MirrorSchemaPath is the JSON Schema of the mirror file (specs/mirror.md)
// inside Schemas.
const MirrorSchemaPath = "schemas/mirror.schema.json"
