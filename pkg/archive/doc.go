// Package archive turns an add-on package tree into a deterministic
// tar+gzip stream and unpacks such streams safely.
//
// Producer side: Scan walks a package directory (skipping .git and what
// .addonpackignore excludes, resolving in-tree symlinks to regular files,
// refusing anything else) and returns its files sorted by path; Write
// serialises them so that the same content always gives the same bytes,
// whatever the absolute path, modification times, owners, umask or creation
// order of the tree: only paths, contents and the exec bit matter. The gzip
// level is pinned (CompressionLevel), as is the compressor (klauspost/compress
// at the version in go.mod): changing either changes every digest.
//
// Consumer side: Extract unpacks a stream into an empty directory through
// an os.Root, accepting only regular files and directories with safe,
// non-colliding names, and enforcing Limits on what it actually reads.
//
// Limits are shared by both sides (specs/artifact.md gives the same
// numbers); Write applies DefaultLimits, so whatever it produces is
// accepted by Extract with DefaultLimits.
//
// Errors caused by content wrap one of the sentinels (ErrUnsafePath,
// ErrEntryType, ErrDuplicate, ErrLimit, ErrIgnoreFile, ErrFormat,
// ErrFileChanged) and, where there is one, carry the offending path in a
// *PathError.
package archive
