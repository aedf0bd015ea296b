package cache

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// recordKeySize is the size of the HMAC key that seals cache records.
const recordKeySize = 32

// LoadRecordKey reads the record key at path, creating it (0600, in a 0700
// directory) with random bytes when it does not exist yet.
func LoadRecordKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if err == nil {
		if len(key) != recordKeySize {
			return nil, fmt.Errorf("cache record key %s: %d bytes, want %d", path, len(key), recordKeySize)
		}
		return key, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	key = make([]byte, recordKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadRecordKey(path) // another process created it first
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return key, f.Close()
}

// DefaultRecordKeyPath is $XDG_CONFIG_HOME/addonpack/cache-record.key, else
// ~/.config/addonpack/cache-record.key.
func DefaultRecordKeyPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "addonpack", "cache-record.key"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "addonpack", "cache-record.key"), nil
	}
	return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set")
}

// WithDefaultRecordKey returns c sealing its records with the user's record
// key (DefaultRecordKeyPath, created on first use). Where there is none to
// be had (no HOME, a read-only configuration directory), an ephemeral key
// keeps records to this process: they are never trusted across runs
// without a key kept outside the cache.
func (c *Cache) WithDefaultRecordKey(getenv func(string) string) *Cache {
	if p, err := DefaultRecordKeyPath(getenv); err == nil {
		if k, err := LoadRecordKey(p); err == nil {
			return c.WithRecordKey(k)
		}
	}
	key := make([]byte, recordKeySize)
	rand.Read(key)
	return c.WithRecordKey(key)
}
