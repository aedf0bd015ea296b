package commands

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/locate"
	"github.com/addonpack/addonpack/pkg/registry"
)

// globals are the flags every command shares: how to reach registries, and
// the cache.
type globals struct {
	streams Streams
	getenv  Getenv

	plainHTTP   bool
	insecure    bool
	caFile      string
	config      string
	cacheDir    string
	noCache     bool
	offline     bool
	readTimeout time.Duration
	quiet       bool

	// progress is the display on a terminal's stderr (nil when there is
	// none), set up by startProgress once the flags are parsed.
	progress *progress

	// the cache, opened once per command by cache()
	cacheOpened bool
	cacheVal    *cache.Cache
	cacheErr    error
}

func (g *globals) addFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.BoolVar(&g.plainHTTP, "plain-http", false, "use plain HTTP for every registry (loopback registries need no flag)")
	f.BoolVar(&g.insecure, "insecure-skip-tls-verify", false, "do not verify registry TLS certificates")
	f.StringVar(&g.caFile, "ca-file", "", "PEM file of CA certificates to trust for registries (and trusted-root fetch's TUF repository)")
	f.StringVar(&g.config, "registry-config", "", "docker config.json with registry credentials (default $DOCKER_CONFIG/config.json or ~/.docker/config.json)")
	f.StringVar(&g.cacheDir, "cache-dir", "", "content-addressed cache of pulled blobs (default $XDG_CACHE_HOME/addonpack or ~/.cache/addonpack)")
	f.BoolVar(&g.noCache, "no-cache", false, "neither read nor write the cache")
	f.BoolVar(&g.offline, "offline", false, "use only the cache: resolve tags to the digest they last resolved to, fetch nothing")
	f.BoolVarP(&g.quiet, "quiet", "q", false, "draw no progress on the terminal (progress is drawn only when stderr is a terminal)")
	f.DurationVar(&g.readTimeout, "read-timeout", registry.DefaultReadTimeout, "give up on a registry request that makes no progress for this long (retried, then exit 5; 0 means the default)")
}

// startProgress sets up the progress display when stderr is a terminal,
// and makes the command's own writes pause it first (progress.go).
func (g *globals) startProgress() {
	g.progress = newProgress(g.streams.Err, g.getenv, g.quiet)
	if g.progress != nil {
		g.streams.Out = pauseFirst{w: g.streams.Out, pr: g.progress}
		g.streams.Err = pauseFirst{w: g.streams.Err, pr: g.progress}
	}
}

// client builds the registry client from the flags and the environment.
func (g *globals) client() (*registry.Client, error) {
	opts := registry.Options{
		PlainHTTP:             g.plainHTTP,
		InsecureSkipTLSVerify: g.insecure,
		DockerConfig:          g.config,
		UserAgent:             "addonpack/" + buildVersion(),
		ReadTimeout:           g.readTimeout,
	}
	if g.progress != nil {
		opts.Progress = g.progress.transfer
	}
	if g.readTimeout < 0 {
		return nil, usageError{fmt.Errorf("--read-timeout %s: want a positive duration (0 for the default, %s)", g.readTimeout, registry.DefaultReadTimeout)}
	}
	if opts.DockerConfig == "" {
		if d := g.getenv("DOCKER_CONFIG"); d != "" {
			opts.DockerConfig = filepath.Join(d, "config.json")
		}
	}
	pool, err := g.rootCAs()
	if err != nil {
		return nil, err
	}
	opts.RootCAs = pool
	return registry.New(opts)
}

// rootCAs reads --ca-file: the CAs trusted instead of the system roots by
// registries and TUF repositories (nil without the flag).
func (g *globals) rootCAs() (*x509.CertPool, error) {
	if g.caFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(g.caFile)
	if err != nil {
		return nil, usageError{fmt.Errorf("--ca-file: %w", err)}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, usageError{fmt.Errorf("--ca-file %s: no PEM certificates found", g.caFile)}
	}
	return pool, nil
}

// reference parses a registry reference argument (locate's rule: one
// written as a path, or without a registry part, is a usage error).
func (g *globals) reference(s string) (registry.Reference, error) {
	ref, err := locate.ParseReference(s)
	if err != nil {
		return registry.Reference{}, usageError{err}
	}
	return ref, nil
}

// locate classifies ARG by locate's rule: a path when written as one, else
// a registry reference.
func (g *globals) locate(arg string) (locate.Arg, error) {
	a, err := locate.Parse(arg)
	if errors.Is(err, registry.ErrInvalidReference) {
		return a, usageError{err}
	}
	return a, err
}

// source opens an artifact source, unverified (inspect): an OCI layout
// when ARG is written as a path, else a registry reference with the cache
// in front.
func (g *globals) source(ctx context.Context, arg string) (artifact.Source, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, err
	}
	var o consume.Options
	switch a.Kind {
	case locate.SourceDir:
		return nil, fmt.Errorf("%s is an add-on source directory: build it (addonpack build %s -o LAYOUT) or push it first: %w", arg, arg, locate.ErrNotUsable)
	case locate.Reference:
		if o, err = g.registryOptions(); err != nil {
			return nil, err
		}
	}
	return consume.Source(ctx, a, o)
}

// registryOptions are the consumer options the global flags give for a
// registry reference: the client, the cache and --offline.
func (g *globals) registryOptions() (consume.Options, error) {
	c, err := g.client()
	if err != nil {
		return consume.Options{}, err
	}
	ch, err := g.cache()
	if err != nil {
		return consume.Options{}, err
	}
	return consume.Options{Client: c, Cache: ch, Offline: g.offline}, nil
}

// consumeOptions maps the global and trust flags to the consumer options
// for a registry reference.
func (g *globals) consumeOptions(ctx context.Context, vf *verifyFlags) (consume.Options, error) {
	o, err := g.registryOptions()
	if err != nil {
		return o, err
	}
	if o.Policy, err = vf.policy(ctx, g); err != nil {
		return o, err
	}
	o.InsecureSkipVerify, o.Warnings, o.Name = vf.skip, g.streams.Err, vf.name
	return o, nil
}

// cache opens the cache, or returns nil to run without one: with --no-cache,
// or when there is no usable location (no HOME in a minimal container, a
// read-only file system), which is reported but not fatal unless --offline.
func (g *globals) cache() (*cache.Cache, error) {
	if !g.cacheOpened {
		g.cacheVal, g.cacheErr = g.openCache()
		g.cacheOpened = true
	}
	return g.cacheVal, g.cacheErr
}

// openCache does the work of cache, once per command.
func (g *globals) openCache() (*cache.Cache, error) {
	if g.noCache {
		if g.offline {
			return nil, usageError{fmt.Errorf("--offline needs the cache: drop --no-cache")}
		}
		return nil, nil
	}
	dir := g.cacheDir
	var err error
	if dir == "" {
		dir, err = cache.DefaultDir(g.getenv)
	}
	var ch *cache.Cache
	if err == nil {
		ch, err = cache.Open(dir)
	}
	if err != nil {
		if g.offline || g.cacheDir != "" {
			return nil, err
		}
		fmt.Fprintf(g.streams.Err, "Warning: running without a cache: %v\n", err)
		return nil, nil
	}
	// Records (verified digests, offline tags) are sealed with a key kept
	// outside the cache; without one, an ephemeral key keeps them to this run.
	key := make([]byte, 32)
	if p, err := cache.DefaultRecordKeyPath(g.getenv); err == nil {
		if k, err := cache.LoadRecordKey(p); err == nil {
			key = k
		}
	}
	if bytes.Equal(key, make([]byte, 32)) {
		rand.Read(key)
	}
	return ch.WithRecordKey(key), nil
}

// consume opens ARG — an OCI layout or a registry reference — for a
// consumer verb: its digest is checked under the trust flags before any
// content is read (pkg/consume).
func (g *globals) consume(ctx context.Context, arg string, vf *verifyFlags) (*consume.Artifact, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, err
	}
	return g.consumeArg(ctx, a, vf)
}

// consumeArg is consume for an argument already located. A layout carries
// no signatures: it takes --insecure-skip-verify, and no registry flags.
func (g *globals) consumeArg(ctx context.Context, a locate.Arg, vf *verifyFlags) (*consume.Artifact, error) {
	o := consume.Options{InsecureSkipVerify: vf.skip, Warnings: g.streams.Err}
	if a.Kind == locate.Reference {
		var err error
		if o, err = g.consumeOptions(ctx, vf); err != nil {
			return nil, err
		}
	}
	art, err := consume.Open(ctx, a, o)
	if errors.Is(err, consume.ErrUnverifiable) {
		return nil, usageError{err}
	}
	return art, err
}

// open opens ARG as a package to configure and render: an add-on source
// directory (holding addon.yaml, the user's own files: not verified), or an
// artifact fetched by digest after verification.
func (g *globals) open(ctx context.Context, arg string, vf *verifyFlags) (*deliver.Package, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, err
	}
	var p *deliver.Package
	if a.Kind == locate.SourceDir {
		p, err = deliver.OpenDir(a.Path, archive.DefaultLimits())
	} else {
		art, cerr := g.consumeArg(ctx, a, vf)
		if cerr != nil {
			return nil, cerr
		}
		p, err = deliver.Fetch(ctx, art.Source, art.PullOptions())
	}
	if err != nil {
		return nil, err
	}
	p.Log = g.streams.Err
	return p, nil
}
