package render

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"testing"
	"testing/fstest"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

const (
	corednsDir = "testdata/coredns"
	configFile = "testdata/config/coredns-config.yaml"
)

// readConfig returns the test add-on's config object.
func readConfig(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(configFile)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mapFSOf copies the regular files of an os directory into a MapFS, under
// prefix ("" for the top).
func mapFSOf(t testing.TB, dir, prefix string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path.Join(dir, p))
		if err != nil {
			return err
		}
		m[path.Join(prefix, p)] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// files builds a MapFS from name/content pairs.
func files(kv ...string) fstest.MapFS {
	m := fstest.MapFS{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = &fstest.MapFile{Data: []byte(kv[i+1]), Mode: 0o644}
	}
	return m
}

// buildFast runs Build and fails the test if it takes more than a few
// seconds: a build that reached for the network (git clone, http) would hang
// or at least be slow, and every build here is in memory.
func buildFast(t testing.TB, in Input) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := Build(ctx, in)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Build did not finish within 10s (did it touch the network?)")
		return nil, nil
	}
}

// objects returns "Kind/name" of each document of rendered YAML, in order.
func objects(t testing.TB, rendered []byte) []string {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(rendered), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("output is not YAML: %v", err)
	}
	var ids []string
	for _, n := range nodes {
		ids = append(ids, n.GetKind()+"/"+n.GetName())
	}
	return ids
}
