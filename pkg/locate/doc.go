// Package locate decides what a command-line argument names — a registry
// reference or a local path (an add-on source directory, an OCI layout
// directory or an OCI layout tarball) — with one rule for every command:
//
//   - an argument written as a path ("./x", "../x", "/x", "~", "~/x", ".",
//     "..") is a path; one that does not exist is not found, one that exists
//     but is not what the command can use says what is wrong with it;
//   - anything else is a registry reference, even when a directory of that
//     name exists: a checkout cannot stand in for a verified artifact. A
//     reference needs a registry part (a host with a '.' or a ':', or
//     localhost in any case); without one it is a usage error that shows how
//     to write the path.
package locate
