package testregistry

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strings"
)

// Grammars from the OCI distribution and image specs.
var (
	// nameRE is the repository name grammar (distribution-spec "Pulling manifests").
	nameRE = regexp.MustCompile(`^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$`)
	// tagRE is the tag grammar.
	tagRE = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$`)
	// digestRE is the generic digest grammar from the image spec.
	digestRE = regexp.MustCompile(`^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$`)
)

// maxNameLength caps repository names; clients limit host/name to 255 bytes.
const maxNameLength = 255

var errUnsupportedAlgorithm = errors.New("unsupported digest algorithm")

// validName reports whether s is a valid repository name.
func validName(s string) bool {
	return len(s) <= maxNameLength && nameRE.MatchString(s)
}

// validTag reports whether s is a valid tag.
func validTag(s string) bool { return tagRE.MatchString(s) }

// parseDigest validates a digest string. It returns errUnsupportedAlgorithm
// (wrapped) for well-formed digests of algorithms other than sha256/sha512.
func parseDigest(s string) (algorithm string, err error) {
	if !digestRE.MatchString(s) {
		return "", fmt.Errorf("invalid digest %q", s)
	}
	alg, enc, _ := strings.Cut(s, ":")
	var size int
	switch alg {
	case "sha256":
		size = sha256.Size
	case "sha512":
		size = sha512.Size
	default:
		return "", fmt.Errorf("%w: %q", errUnsupportedAlgorithm, alg)
	}
	if len(enc) != 2*size || strings.ToLower(enc) != enc {
		return "", fmt.Errorf("invalid %s digest %q: want %d lowercase hex characters", alg, s, 2*size)
	}
	if _, err := hex.DecodeString(enc); err != nil {
		return "", fmt.Errorf("invalid %s digest %q: %w", alg, s, err)
	}
	return alg, nil
}

// newHash returns a hash for a supported algorithm.
func newHash(algorithm string) (hash.Hash, error) {
	switch algorithm {
	case "sha256":
		return sha256.New(), nil
	case "sha512":
		return sha512.New(), nil
	}
	return nil, fmt.Errorf("%w: %q", errUnsupportedAlgorithm, algorithm)
}

// digestOf computes the digest of b with the given algorithm.
func digestOf(algorithm string, b []byte) (string, error) {
	h, err := newHash(algorithm)
	if err != nil {
		return "", err
	}
	h.Write(b)
	return algorithm + ":" + hex.EncodeToString(h.Sum(nil)), nil
}

// digestReader hashes everything read from r with the algorithm of want and
// reports whether the result equals want.
func digestReader(want string, r io.Reader) (int64, error) {
	alg, _, _ := strings.Cut(want, ":")
	h, err := newHash(alg)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(h, r)
	if err != nil {
		return n, fmt.Errorf("hashing content: %w", err)
	}
	if got := alg + ":" + hex.EncodeToString(h.Sum(nil)); got != want {
		return n, fmt.Errorf("%w: computed %s, expected %s", ErrDigestMismatch, got, want)
	}
	return n, nil
}
