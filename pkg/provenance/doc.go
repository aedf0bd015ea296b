// Package provenance builds the SLSA Provenance v1 that addonpack attaches to
// every signed push: an in-toto Statement v1 whose subject is the pushed
// manifest digest and whose predicate (https://slsa.dev/provenance/v1)
// records the build type, the external parameters, the source repository and
// commit, the digests of the packed inputs, the builder and the build times.
// The normative description is specs/provenance.md.
package provenance
