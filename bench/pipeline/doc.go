// Package pipeline holds in-process benchmarks of whole addonpack flows
// (publish with signing and provenance, key unlock) for profiling with
// `go test -bench . -cpuprofile`; the package itself has no code.
package pipeline
