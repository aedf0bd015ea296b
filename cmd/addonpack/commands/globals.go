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
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/locate"
	"github.com/addonpack/addonpack/pkg/pull"
	"github.com/addonpack/addonpack/pkg/registry"
)

// globals are the flags every command shares: how to reach registries.
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
	f.StringVar(&g.caFile, "ca-file", "", "PEM file of CA certificates to trust for registries")
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

// source opens an artifact source: an OCI layout when ARG is written as a
// path, else a registry reference.
func (g *globals) source(ctx context.Context, arg string) (artifact.Source, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, err
	}
	switch a.Kind {
	case locate.Reference:
	case locate.SourceDir:
		return nil, fmt.Errorf("%s is an add-on source directory: build it (addonpack build %s -o LAYOUT) or push it first: %w", arg, arg, locate.ErrNotUsable)
	default:
		return artifact.OpenLayout(ctx, a.Layout)
	}
	c, err := g.client()
	if err != nil {
		return nil, err
	}
	return g.cached(artifact.Remote{Client: c, Ref: a.Ref})
}

// cached puts the cache in front of a registry source, when there is one.
func (g *globals) cached(remote artifact.Remote) (artifact.Source, error) {
	ch, err := g.cache()
	if err != nil {
		return nil, err
	}
	if ch == nil {
		return remote, nil
	}
	return cache.Source{Inner: remote, Cache: ch, Offline: g.offline}, nil
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
// consumer verb and returns the pull options whose Verify hook checks the
// resolved digest under the trust flags before any content is read.
func (g *globals) consume(ctx context.Context, arg string, vf *verifyFlags) (artifact.Source, pull.Options, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, pull.Options{}, err
	}
	return g.consumeArg(ctx, a, vf)
}

// consumeArg is consume for an argument already located.
func (g *globals) consumeArg(ctx context.Context, a locate.Arg, vf *verifyFlags) (artifact.Source, pull.Options, error) {
	switch a.Kind {
	case locate.Reference:
	case locate.SourceDir:
		return nil, pull.Options{}, fmt.Errorf("%s is an add-on source directory, not an artifact: build or push it first: %w", a.Raw, locate.ErrNotUsable)
	default:
		if !vf.skip {
			return nil, pull.Options{}, usageError{fmt.Errorf("%s is an OCI layout: signatures live in registries, so verify the pushed copy, or pass --insecure-skip-verify", a.Raw)}
		}
		src, err := artifact.OpenLayout(ctx, a.Layout)
		if err != nil {
			return nil, pull.Options{}, err
		}
		fmt.Fprintf(g.streams.Err, "Warning: --insecure-skip-verify: %s is not verified\n", a.Raw)
		return src, pull.Options{}, nil
	}
	c, err := g.client()
	if err != nil {
		return nil, pull.Options{}, err
	}
	src, err := g.cached(artifact.Remote{Client: c, Ref: a.Ref})
	if err != nil {
		return nil, pull.Options{}, err
	}
	hook, err := vf.hook(ctx, g, c, a.Ref)
	if err != nil {
		return nil, pull.Options{}, err
	}
	claim, err := vf.claim(ctx, g, a.Ref)
	if err != nil {
		return nil, pull.Options{}, err
	}
	return src, pull.Options{Verify: hook, Claim: claim}, nil
}

// open opens ARG as a package to configure and render: an add-on source
// directory (holding addon.yaml, the user's own files: not verified), or an
// artifact fetched by digest after verification.
func (g *globals) open(ctx context.Context, arg string, vf *verifyFlags) (*deliver.Package, error) {
	a, err := g.locate(arg)
	if err != nil {
		return nil, err
	}
	if a.Kind == locate.SourceDir {
		return deliver.OpenDir(a.Path, archive.DefaultLimits())
	}
	src, opts, err := g.consumeArg(ctx, a, vf)
	if err != nil {
		return nil, err
	}
	return deliver.Fetch(ctx, src, opts)
}
