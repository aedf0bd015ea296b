package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/addonpack/addonpack/pkg/keys"
)

func newKeygen(g *globals) *cobra.Command {
	var (
		prefix string
		f      format
	)
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Generate a cosign-compatible signing key pair",
		Long: `keygen writes PREFIX.key, an ECDSA P-256 private key encrypted the way cosign encrypts it
(scrypt + secretbox, "ENCRYPTED SIGSTORE PRIVATE KEY"), and PREFIX.pub, its public key.
The password comes from $COSIGN_PASSWORD, or is asked for twice on a terminal.
Keys from 'cosign generate-key-pair' work in addonpack and the other way round.`,
		Example: `  COSIGN_PASSWORD=secret addonpack keygen --output-key-prefix ci
  COSIGN_PASSWORD=secret addonpack push ./hello localhost:5000/addons/hello:0.1.0 --key ci.key`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			pair, err := keys.WriteKeyPair(prefix, g.passFunc(cmd.Context()))
			if err != nil {
				return err
			}
			out := struct {
				PrivateKey string `json:"privateKey"`
				PublicKey  string `json:"publicKey"`
				KeyID      string `json:"keyId"`
			}{prefix + ".key", prefix + ".pub", pair.ID}
			return f.print(g.streams.Out, out, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "Private key written to %s\nPublic key written to %s\nKey id %s\n", out.PrivateKey, out.PublicKey, out.KeyID)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&prefix, "output-key-prefix", "cosign", "write PREFIX.key and PREFIX.pub")
	addFormat(cmd, &f, true)
	return cmd
}

// errNoPassword is returned when a password is needed and none can be had:
// the command line (its environment) must give it.
var errNoPassword = usageError{errors.New("no password: set COSIGN_PASSWORD or run on a terminal")}

// passFunc reads the key password from $COSIGN_PASSWORD, else from the
// terminal (twice when confirming). An interrupt at the prompt (ctx done)
// ends the read at once, the terminal's echo restored.
func (g *globals) passFunc(ctx context.Context) keys.PassFunc {
	return func(confirm bool) ([]byte, error) {
		if pw, ok := g.lookupEnv("COSIGN_PASSWORD"); ok {
			return []byte(pw), nil
		}
		in, ok := g.streams.In.(*os.File)
		if !ok || !term.IsTerminal(int(in.Fd())) {
			return nil, errNoPassword
		}
		pw, err := g.readPassword(ctx, in, "Enter password for private key: ")
		if err != nil || !confirm {
			return pw, err
		}
		again, err := g.readPassword(ctx, in, "Enter password for private key again: ")
		if err != nil {
			return nil, err
		}
		if string(pw) != string(again) {
			return nil, errors.New("passwords do not match")
		}
		return pw, nil
	}
}

// readPassword prompts on stderr and reads a password from the terminal in
// without echo. term.ReadPassword cannot be interrupted, so it reads on its
// own goroutine: when ctx ends first (SIGINT, SIGTERM) the terminal's state
// is restored and ctx's error returned (exit 130); the abandoned read ends
// with the process.
func (g *globals) readPassword(ctx context.Context, in *os.File, prompt string) ([]byte, error) {
	fd := int(in.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return nil, err
	}
	fmt.Fprint(g.streams.Err, prompt)
	defer fmt.Fprintln(g.streams.Err)
	type read struct {
		pw  []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		pw, err := term.ReadPassword(fd)
		done <- read{pw, err}
	}()
	select {
	case r := <-done:
		return r.pw, r.err
	case <-ctx.Done():
		term.Restore(fd, state)
		return nil, ctx.Err()
	}
}

// lookupEnv reports a non-empty variable. (Getenv cannot tell an empty
// value from an unset one, so an empty password cannot be given this way.)
func (g *globals) lookupEnv(name string) (string, bool) {
	v := g.getenv(name)
	return v, v != ""
}
