package registry

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"time"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// DockerConfigPath is the docker config.json docker itself reads —
// $DOCKER_CONFIG/config.json, else ~/.docker/config.json — named so that a
// refusal can say which file; "" when neither variable is set.
func DockerConfigPath(getenv func(string) string) string {
	if d := getenv("DOCKER_CONFIG"); d != "" {
		return filepath.Join(d, "config.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".docker", "config.json")
	}
	return ""
}

// LoadCAFile reads the PEM file of --ca-file: the CAs trusted instead of
// the system roots (nil for ""). A file that cannot be read or holds no
// certificate is a command-line mistake (errdef.ErrUsage).
func LoadCAFile(file string) (*x509.CertPool, error) {
	if file == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, errdef.Usagef("--ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errdef.Usagef("--ca-file %s: no PEM certificates found", file)
	}
	return pool, nil
}

// CheckReadTimeout refuses a negative --read-timeout (errdef.ErrUsage);
// 0 means DefaultReadTimeout.
func CheckReadTimeout(d time.Duration) error {
	if d < 0 {
		return errdef.Usagef("--read-timeout %s: want a positive duration (0 for the default, %s)", d, DefaultReadTimeout)
	}
	return nil
}
