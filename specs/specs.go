// Package specs embeds the normative JSON Schemas of addonpack's formats so that
// the code validates against exactly the documents that are published.
package specs

import "embed"

// Schemas holds schemas/*.json.
//
//go:embed schemas/*.json
var Schemas embed.FS

// AddonSchemaPath is the path of the addon.yaml JSON Schema inside Schemas.
const AddonSchemaPath = "schemas/addon.schema.json"
