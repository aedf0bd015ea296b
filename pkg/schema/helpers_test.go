package schema

import (
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustCompile(t testing.TB, name string) *Schema {
	t.Helper()
	s, err := Compile(readTestdata(t, name), name, DefaultLimits())
	if err != nil {
		t.Fatalf("Compile(%s): %v", name, err)
	}
	return s
}

func mustCompileString(t testing.TB, src string) *Schema {
	t.Helper()
	s, err := Compile([]byte(src), "inline.yaml", DefaultLimits())
	if err != nil {
		t.Fatalf("Compile: %v\n%s", err, src)
	}
	return s
}

func mustDecode(t testing.TB, src string) any {
	t.Helper()
	v, err := Decode([]byte(src), "inline.yaml")
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, src)
	}
	return v
}
