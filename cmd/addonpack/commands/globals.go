package commands

import (
	"context"
	"crypto/x509"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/internal/termprogress"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
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
	progress *termprogress.Display

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
// and makes the command's own writes pause it first (internal/termprogress).
func (g *globals) startProgress() {
	g.progress = termprogress.New(g.streams.Err, g.getenv, g.quiet)
	g.streams.Out = termprogress.PauseFirst(g.streams.Out, g.progress)
	g.streams.Err = termprogress.PauseFirst(g.streams.Err, g.progress)
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
		opts.Progress = g.progress.Transfer
	}
	if err := registry.CheckReadTimeout(g.readTimeout); err != nil {
		return nil, usage(err)
	}
	if opts.DockerConfig == "" { // the file docker itself reads, named so that a refusal can say which
		opts.DockerConfig = registry.DockerConfigPath(g.getenv)
	}
	pool, err := g.rootCAs()
	if err != nil {
		return nil, err
	}
	opts.RootCAs = pool
	return registry.New(opts)
}

// rootCAs reads --ca-file (registry.LoadCAFile): the CAs trusted instead
// of the system roots by registries and TUF repositories.
func (g *globals) rootCAs() (*x509.CertPool, error) {
	pool, err := registry.LoadCAFile(g.caFile)
	return pool, usage(err)
}

// reference parses a registry reference argument (consume's rule: one
// written as a path, or without a registry part, is a usage error).
func (g *globals) reference(s string) (registry.Reference, error) {
	ref, err := consume.ParseReference(s)
	if err != nil {
		return registry.Reference{}, usageError{err}
	}
	return ref, nil
}

// consumer builds the consumer the global and trust flags describe: the
// registry client, the cache and the policy (none with
// --insecure-skip-verify; vf nil reads unverified, as inspect does).
func (g *globals) consumer(ctx context.Context, vf *verifyFlags) (*consume.Consumer, error) {
	c := g.localConsumer(vf)
	var err error
	if c.Client, err = g.client(); err != nil {
		return nil, err
	}
	if c.Cache, err = g.cache(); err != nil {
		return nil, err
	}
	c.Offline = g.offline
	if vf != nil {
		if c.Policy, err = vf.policy(ctx, g); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// consumerFor is consumer for one argument, checked first: for a path — a source
// directory is the user's own, a layout carries no signatures (it takes
// --insecure-skip-verify) — neither registry flags nor trust are read, and
// trust named for a source directory is refused (consume.Arg.TrustFor).
func (g *globals) consumerFor(ctx context.Context, vf *verifyFlags, arg string) (*consume.Consumer, error) {
	return g.consumerOf(ctx, vf, arg, true)
}

// consumerOf is consumerFor; own says whether the trust flags are this
// argument's alone (diff's are for either side, one may be a directory).
func (g *globals) consumerOf(ctx context.Context, vf *verifyFlags, arg string, own bool) (*consume.Consumer, error) {
	a, err := consume.ParseArg(arg)
	if err != nil {
		return nil, usage(err) // what is wrong with arg comes first
	}
	if vf != nil && own {
		if err := a.TrustFor(vf.Given() && !vf.SkipVerify); err != nil {
			return nil, usage(err)
		}
	}
	if a.Kind != consume.KindReference {
		return g.localConsumer(vf), nil
	}
	return g.consumer(ctx, vf)
}

// localConsumer is a consumer of local paths only.
func (g *globals) localConsumer(vf *verifyFlags) *consume.Consumer {
	c := consume.New(consume.Options{Warnings: g.streams.Err})
	if vf != nil {
		c.InsecureSkipVerify, c.Name = vf.SkipVerify, vf.name
	}
	return c
}

// open opens arg as a package to configure and render (consume's Package)
// through the consumer the flags describe, for Kubernetes version kube;
// own as for consumerOf.
func (g *globals) open(ctx context.Context, arg string, vf *verifyFlags, kube semver.Version, own bool) (*deliver.Package, error) {
	c, err := g.consumerOf(ctx, vf, arg, own)
	if err != nil {
		return nil, err
	}
	c.KubeVersion = kube
	p, err := c.Package(ctx, arg)
	return p, usage(err)
}

// usage marks the packages' errors about the command line itself — a
// reference that does not parse, a layout given without
// --insecure-skip-verify, flags that do not go together (errdef.ErrUsage) —
// as usage errors.
func usage(err error) error {
	if errors.Is(err, registry.ErrInvalidReference) || errors.Is(err, consume.ErrUnverifiable) || errors.Is(err, consume.ErrAmbiguousArg) || errors.Is(err, errdef.ErrUsage) {
		return usageError{err}
	}
	return err
}

// cache opens the cache the flags name, once per command (cache.OpenFlags:
// nil to run without one).
func (g *globals) cache() (*cache.Cache, error) {
	if !g.cacheOpened {
		g.cacheVal, g.cacheErr = cache.OpenFlags(cache.Flags{Dir: g.cacheDir, NoCache: g.noCache, Offline: g.offline, Getenv: g.getenv, Warnings: g.streams.Err})
		g.cacheErr, g.cacheOpened = usage(g.cacheErr), true
	}
	return g.cacheVal, g.cacheErr
}
