package config

import "github.com/addonpack/addonpack/pkg/schema"

// Merge returns base with over laid on top: objects merge key by key,
// recursively; any other value in over (scalars, lists, null) replaces the
// one in base. Neither input is modified.
func Merge(base, over any) any {
	bm, bok := base.(map[string]any)
	om, ook := over.(map[string]any)
	if !bok || !ook {
		return schema.DeepCopy(over)
	}
	out := make(map[string]any, len(bm)+len(om))
	for k, v := range bm {
		out[k] = schema.DeepCopy(v)
	}
	for k, v := range om {
		out[k] = Merge(out[k], v)
	}
	return out
}
