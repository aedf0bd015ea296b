// Command addonpack packs, signs, publishes and consumes Kubernetes add-ons
// as OCI artifacts. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
	"github.com/addonpack/addonpack/cmd/addonpack/internal/startgc"
)

func main() {
	startgc.Restore()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	streams := commands.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	code := commands.Run(ctx, streams, os.Getenv, os.Args[1:])
	stop()
	os.Exit(code)
}
