// Command summary reads `go test -json` on stdin, prints the tests' output as
// it arrives (so a long wait still shows a line at least every 15 seconds)
// and ends with "N passed, N failed"; it exits 1 when a test or the package
// failed, or when no test ran at all.
package main

import (
	"fmt"
	"os"
)

func main() {
	s, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	fmt.Println(s.line())
	if !s.ok() {
		os.Exit(1)
	}
}
