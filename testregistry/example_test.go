package testregistry_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/addonpack/addonpack/testregistry"
)

// ExampleNewHandler serves the registry with net/http/httptest and pushes
// and checks a blob. In a test, testregistry.New(t) serves the same handler
// on a loopback port, stops it when the test ends and records every request
// (Registry.Log).
func ExampleNewHandler() {
	srv := httptest.NewServer(testregistry.NewHandler(testregistry.NewMemoryStorage()))
	defer srv.Close()

	content := []byte("hello, registry")
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(content))
	resp, err := http.Post(srv.URL+"/v2/demo/app/blobs/uploads/?digest="+digest, "application/octet-stream", bytes.NewReader(content))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Location") == "/v2/demo/app/blobs/"+digest)

	resp, err = http.Head(srv.URL + "/v2/demo/app/blobs/" + digest)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.ContentLength)
	// Output:
	// 201 true
	// 200 15
}
