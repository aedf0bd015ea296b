package config

// Merge returns base with over laid on top: objects merge key by key,
// recursively; any other value in over (scalars, lists, null) replaces the
// one in base. Neither input is modified.
func Merge(base, over any) any {
	bm, bok := base.(map[string]any)
	om, ook := over.(map[string]any)
	if !bok || !ook {
		return deepCopy(over)
	}
	out := make(map[string]any, len(bm)+len(om))
	for k, v := range bm {
		out[k] = deepCopy(v)
	}
	for k, v := range om {
		out[k] = Merge(out[k], v)
	}
	return out
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}
