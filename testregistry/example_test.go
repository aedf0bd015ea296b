package testregistry_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"testing"

	"github.com/addonpack/addonpack/testregistry"
)

// ExampleNew pushes and pulls a blob. In a real test, pass the test's t.
func ExampleNew() {
	t := &testing.T{} // stands in for the *testing.T of a test
	reg := testregistry.New(t)

	content := []byte("hello, registry")
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(content))
	resp, err := http.Post(reg.URL()+"/v2/demo/app/blobs/uploads/?digest="+digest, "application/octet-stream", bytes.NewReader(content))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Location") == "/v2/demo/app/blobs/"+digest)

	resp, err = http.Head(reg.URL() + "/v2/demo/app/blobs/" + digest)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.ContentLength)
	for _, r := range reg.Log() {
		fmt.Println(r.Method, r.Status)
	}
	// Output:
	// 201 true
	// 200 15
	// POST 201
	// HEAD 200
}
