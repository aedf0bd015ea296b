// Command servecmd is a stand-in for `addonpack registry serve`, used by
// scripts/conformance.sh when no addonpack binary is given. It prints
// "listening on http://HOST:PORT" as its first stderr line.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/addonpack/addonpack/testregistry"
)

func main() {
	var cfg testregistry.Config
	flag.StringVar(&cfg.Addr, "addr", "127.0.0.1:5000", "listen address")
	flag.StringVar(&cfg.Root, "root", "", "storage directory (empty: memory)")
	flag.StringVar(&cfg.Htpasswd, "htpasswd", "", "htpasswd file")
	flag.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate")
	flag.StringVar(&cfg.TLSKey, "tls-key", "", "TLS key")
	flag.BoolVar(&cfg.AllowSparse, "allow-sparse", false, "accept manifests with missing references")
	// Accept the CLI's spelling: servecmd registry serve --addr ...
	args := os.Args[1:]
	for len(args) > 0 && (args[0] == "registry" || args[0] == "serve") {
		args = args[1:]
	}
	if err := flag.CommandLine.Parse(args); err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	err := testregistry.Serve(ctx, cfg, func(addr string) {
		fmt.Fprintf(os.Stderr, "listening on %s://%s\n", scheme, addr)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
