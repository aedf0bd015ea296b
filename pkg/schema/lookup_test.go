package schema

import (
	"reflect"
	"testing"
)

func TestLookup(t *testing.T) {
	v := map[string]any{"a": map[string]any{"b": "x", "n": nil}, "l": []any{1}}
	tests := []struct {
		path []string
		want any
		ok   bool
	}{
		{nil, v, true},
		{[]string{"a", "b"}, "x", true},
		{[]string{"a", "n"}, nil, true},
		{[]string{"a", "c"}, nil, false},
		{[]string{"a", "b", "c"}, nil, false}, // under a string
		{[]string{"l", "0"}, nil, false},      // lists are not walked
	}
	for _, tt := range tests {
		got, ok := Lookup(v, tt.path)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Lookup(%v) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}
