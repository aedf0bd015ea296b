package convert

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
)

// toCEL turns JSON values (json.Number for numbers) into CEL values: int
// for integers that fit in 64 bits, double otherwise. It measures v with m
// as it goes and stops at the first bound passed.
//
// The values are built whole (types.NewRefValMap, not a Go map that cel-go
// adapts on each access) so that each keeps its size once cel-go's memory
// tracker has measured it: reading spec.m in a loop is then measured once,
// not once per iteration.
func toCEL(v any, m *meter, depth int) (ref.Val, error) {
	switch v := v.(type) {
	case map[string]any:
		if err := m.enter(depth); err != nil {
			return nil, err
		}
		if err := m.container(len(v)); err != nil {
			return nil, err
		}
		out := make(map[ref.Val]ref.Val, len(v))
		for k, e := range v {
			if err := m.key(k); err != nil {
				return nil, err
			}
			c, err := toCEL(e, m, depth+1)
			if err != nil {
				return nil, err
			}
			out[types.String(k)] = c
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, out), nil
	case []any:
		if err := m.enter(depth); err != nil {
			return nil, err
		}
		if err := m.container(len(v)); err != nil {
			return nil, err
		}
		out := make([]ref.Val, len(v))
		for i, e := range v {
			c, err := toCEL(e, m, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return types.NewRefValList(types.DefaultTypeAdapter, out), nil
	case json.Number:
		if err := m.add(1, int64(len(v))); err != nil {
			return nil, err
		}
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return types.Int(i), nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %v", v, err)
		}
		return types.Double(f), nil
	case string:
		if err := m.add(1, jsonStringLen(v)); err != nil {
			return nil, err
		}
		return types.String(v), nil
	case bool:
		return types.Bool(v), m.add(1, int64(len(strconv.FormatBool(v))))
	case nil:
		return types.NullValue, m.add(1, 4)
	case int64:
		return types.Int(v), m.add(1, int64(len(strconv.FormatInt(v, 10))))
	case int:
		return types.Int(v), m.add(1, int64(len(strconv.Itoa(v))))
	case float64:
		return types.Double(v), m.add(1, int64(len(strconv.FormatFloat(v, 'g', -1, 64))))
	default:
		return nil, fmt.Errorf("%T is not a JSON value", v)
	}
}

// fromCEL turns a CEL result into JSON values (json.Number for numbers, in
// the canonical form of pkg/schema), refusing what JSON cannot hold. It
// measures the result with m as it builds it, and stops at the first bound
// passed: a result that is a small graph of shared lists and maps (cel-go
// concatenates lists without copying them) is never built whole when its
// JSON tree is too large.
func fromCEL(v ref.Val, m *meter, depth int) (any, error) {
	switch v := v.(type) {
	case types.Null:
		return nil, m.add(1, 4)
	case types.Bool:
		return bool(v), m.add(1, int64(len(strconv.FormatBool(bool(v)))))
	case types.Int:
		n := json.Number(strconv.FormatInt(int64(v), 10))
		return n, m.add(1, int64(len(n)))
	case types.Uint:
		n := json.Number(strconv.FormatUint(uint64(v), 10))
		return n, m.add(1, int64(len(n)))
	case types.Double:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("result %v is not a JSON number", f)
		}
		var n json.Number
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			n = json.Number(strconv.FormatInt(int64(f), 10))
		} else {
			n = json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return n, m.add(1, int64(len(n)))
	case types.String:
		return string(v), m.add(1, jsonStringLen(string(v)))
	}
	if l, ok := v.(traits.Lister); ok && v.Type().TypeName() == types.ListType.TypeName() {
		if err := m.enter(depth); err != nil {
			return nil, err
		}
		n, _ := l.Size().(types.Int)
		if err := m.container(int(n)); err != nil {
			return nil, err
		}
		out := make([]any, 0, min(int(n), MaxValueNodes))
		for i := types.Int(0); i < n; i++ {
			e, err := fromCEL(l.Get(i), m, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	if mp, ok := v.(traits.Mapper); ok && v.Type().TypeName() == types.MapType.TypeName() {
		if err := m.enter(depth); err != nil {
			return nil, err
		}
		n, _ := mp.Size().(types.Int)
		if err := m.container(int(n)); err != nil {
			return nil, err
		}
		out := map[string]any{}
		for it := mp.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("result is a map with a %s key, not a JSON object", k.Type().TypeName())
			}
			if err := m.key(string(ks)); err != nil {
				return nil, err
			}
			e, err := fromCEL(mp.Get(k), m, depth+1)
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("result is %s, not a JSON value", v.Type().TypeName())
}

// measure walks the JSON value v with m, building nothing: the converted
// spec, which the non-CEL rules (default) may have grown after the last
// evaluation.
func measure(v any, m *meter, depth int) error {
	switch v := v.(type) {
	case map[string]any:
		if err := m.enter(depth); err != nil {
			return err
		}
		if err := m.container(len(v)); err != nil {
			return err
		}
		for k, e := range v {
			if err := m.key(k); err != nil {
				return err
			}
			if err := measure(e, m, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		if err := m.enter(depth); err != nil {
			return err
		}
		if err := m.container(len(v)); err != nil {
			return err
		}
		for _, e := range v {
			if err := measure(e, m, depth+1); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		return m.add(1, int64(len(v)))
	case string:
		return m.add(1, jsonStringLen(v))
	case bool:
		return m.add(1, int64(len(strconv.FormatBool(v))))
	case nil:
		return m.add(1, 4)
	default:
		return m.add(1, int64(len(fmt.Sprint(v))))
	}
}
