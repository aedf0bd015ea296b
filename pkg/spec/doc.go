// Package spec defines addonpack's formats: the addon.yaml source manifest
// (specs/addon-source.md) and the OCI artifact that packs it
// (specs/artifact.md): media types, annotation keys, and the strict decoding and
// validation of both.
//
// Everything here is pure: no file system walks, no network. Callers hand in
// bytes and get typed values or errors that name the file and field.
package spec
