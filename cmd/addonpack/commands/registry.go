package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/testregistry"
)

func newRegistry(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Run addonpack's embedded OCI registry",
	}
	var cfg testregistry.Config
	var accessLog bool
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve an OCI distribution-spec v1.1 registry (for local development and tests)",
		Long: `serve runs addonpack's embedded registry: OCI distribution-spec v1.1 with the referrers
API, in memory or on disk (--root), optionally with htpasswd basic auth and TLS. It prints
"listening on http://HOST:PORT" on stderr once it accepts connections (use --addr
127.0.0.1:0 for a free port) and stops cleanly on SIGINT/SIGTERM.`,
		Example: `  addonpack registry serve --addr 127.0.0.1:5000
  addonpack registry serve --addr 127.0.0.1:5000 --root ./registry-data`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if accessLog {
				cfg.Log = g.streams.Err
			}
			scheme := "http"
			if cfg.TLSCert != "" {
				scheme = "https"
			}
			return testregistry.Serve(cmd.Context(), cfg, func(addr string) {
				fmt.Fprintf(g.streams.Err, "listening on %s://%s\n", scheme, addr)
			})
		},
	}
	f := serve.Flags()
	f.StringVar(&cfg.Addr, "addr", "127.0.0.1:5000", "address to listen on (127.0.0.1:0 picks a free port)")
	f.StringVar(&cfg.Root, "root", "", "directory to store content in (default: memory)")
	f.StringVar(&cfg.Htpasswd, "htpasswd", "", "htpasswd file (bcrypt) enabling basic auth")
	f.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM)")
	f.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	f.BoolVar(&accessLog, "access-log", false, "log every request to stderr")
	f.BoolVar(&cfg.AllowSparse, "allow-sparse", false, "accept manifests whose blobs were never pushed (the conformance suite's sparse data set); strict by default")
	cmd.AddCommand(serve)
	return cmd
}
