package commands

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/registry"
)

// globals are the flags every command shares: how to reach registries.
type globals struct {
	streams Streams
	getenv  Getenv

	plainHTTP bool
	insecure  bool
	caFile    string
	config    string
}

func (g *globals) addFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.BoolVar(&g.plainHTTP, "plain-http", false, "use plain HTTP for every registry (loopback registries need no flag)")
	f.BoolVar(&g.insecure, "insecure-skip-tls-verify", false, "do not verify registry TLS certificates")
	f.StringVar(&g.caFile, "ca-file", "", "PEM file of CA certificates to trust for registries")
	f.StringVar(&g.config, "registry-config", "", "docker config.json with registry credentials (default $DOCKER_CONFIG/config.json or ~/.docker/config.json)")
}

// client builds the registry client from the flags and the environment.
func (g *globals) client() (*registry.Client, error) {
	opts := registry.Options{
		PlainHTTP:             g.plainHTTP,
		InsecureSkipTLSVerify: g.insecure,
		DockerConfig:          g.config,
		UserAgent:             "addonpack/" + buildVersion(),
	}
	if opts.DockerConfig == "" {
		if d := g.getenv("DOCKER_CONFIG"); d != "" {
			opts.DockerConfig = filepath.Join(d, "config.json")
		}
	}
	if g.caFile != "" {
		pem, err := os.ReadFile(g.caFile)
		if err != nil {
			return nil, usageError{fmt.Errorf("--ca-file: %w", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usageError{fmt.Errorf("--ca-file %s: no PEM certificates found", g.caFile)}
		}
		opts.RootCAs = pool
	}
	return registry.New(opts)
}

// reference parses a registry reference argument.
func (g *globals) reference(s string) (registry.Reference, error) {
	ref, err := registry.ParseReference(s)
	if err != nil {
		return registry.Reference{}, usageError{err}
	}
	return ref, nil
}

// source opens an artifact source: an OCI layout path ("PATH[:TAG]") when one
// exists there, else a registry reference.
func (g *globals) source(ctx context.Context, arg string) (artifact.Source, error) {
	if layout.IsLayout(arg) {
		return artifact.OpenLayout(ctx, arg)
	}
	ref, err := g.reference(arg)
	if err != nil {
		return nil, err
	}
	c, err := g.client()
	if err != nil {
		return nil, err
	}
	return artifact.Remote{Client: c, Ref: ref}, nil
}
