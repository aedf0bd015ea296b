package testregistry

import (
	"bufio"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// authRealm is the Basic realm announced in WWW-Authenticate.
const authRealm = "addonpack-testregistry"

// credential checks a password.
type credential interface {
	matches(password string) bool
}

type plainCredential string

func (c plainCredential) matches(p string) bool {
	return subtle.ConstantTimeCompare([]byte(c), []byte(p)) == 1
}

type bcryptCredential []byte

func (c bcryptCredential) matches(p string) bool {
	return bcrypt.CompareHashAndPassword(c, []byte(p)) == nil
}

// shaCredential is htpasswd's {SHA}: base64(sha1(password)).
type shaCredential string

func (c shaCredential) matches(p string) bool {
	sum := sha1.Sum([]byte(p))
	return subtle.ConstantTimeCompare([]byte(c), []byte(base64.StdEncoding.EncodeToString(sum[:]))) == 1
}

// loadHtpasswd reads "user:hash" lines; blank lines and # comments are skipped.
func loadHtpasswd(path string) (map[string]credential, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer f.Close()
	users := map[string]credential{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		user, hash, ok := strings.Cut(text, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("%s:%d: want user:hash", path, line)
		}
		switch {
		case strings.HasPrefix(hash, "$2y$"), strings.HasPrefix(hash, "$2a$"), strings.HasPrefix(hash, "$2b$"):
			users[user] = bcryptCredential(hash)
		case strings.HasPrefix(hash, "{SHA}"):
			users[user] = shaCredential(strings.TrimPrefix(hash, "{SHA}"))
		default:
			return nil, fmt.Errorf("%s:%d: unsupported hash for %q (want bcrypt or {SHA})", path, line, user)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return users, nil
}

// authorized checks basic auth when it is enabled, answering 401 otherwise.
func (h *handler) authorized(w http.ResponseWriter, r *http.Request) bool {
	if h.opts.users == nil {
		return true
	}
	if user, pass, ok := r.BasicAuth(); ok {
		if c, known := h.opts.users[user]; known && c.matches(pass) {
			return true
		}
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="`+authRealm+`"`)
	writeError(w, r, http.StatusUnauthorized, CodeUnauthorized, "authentication required", nil)
	return false
}
