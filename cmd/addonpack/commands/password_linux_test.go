package commands_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/term"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// lockedBuffer is a bytes.Buffer written by the CLI and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInterruptAtPasswordPrompt: SIGINT or SIGTERM at the password prompt
// (main turns them into a cancelled context) ends keygen and sign at once
// with exit 130, the terminal's echo restored and no key file written; with
// neither a terminal nor COSIGN_PASSWORD the password is a usage error (2).
func TestInterruptAtPasswordPrompt(t *testing.T) {
	dir := t.TempDir()
	if r := run(t, map[string]string{"COSIGN_PASSWORD": "pw"}, "keygen", "--output-key-prefix", filepath.Join(dir, "signer")); r.code != 0 {
		t.Fatalf("keygen: %+v", r)
	}
	for _, args := range [][]string{
		{"keygen", "--output-key-prefix", filepath.Join(dir, "new")},
		{"sign", "localhost:5999/addons/hello:0.1.0", "--key", filepath.Join(dir, "signer.key")},
	} {
		t.Run(args[0], func(t *testing.T) {
			tty, _ := openPty(t)
			before, err := term.GetState(int(tty.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var stderr lockedBuffer
			code := make(chan int, 1)
			go func() {
				code <- commands.Run(ctx, commands.Streams{In: tty, Out: &bytes.Buffer{}, Err: &stderr}, func(string) string { return "" }, args)
			}()
			for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), "Enter password"); {
				if time.Now().After(deadline) {
					t.Fatalf("no prompt: %q", stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel() // what signal.NotifyContext does on SIGINT
			select {
			case c := <-code:
				if c != commands.ExitInterrupted {
					t.Errorf("exit %d, want %d: %s", c, commands.ExitInterrupted, stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatal("the prompt ignored the interrupt")
			}
			after, err := term.GetState(int(tty.Fd()))
			if err != nil || *after != *before {
				t.Errorf("the terminal was left as the prompt set it (%v)", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.key")); err == nil {
				t.Error("an interrupted keygen wrote a key")
			}
		})
	}
	if r := run(t, nil, "keygen", "--output-key-prefix", filepath.Join(dir, "none")); r.code != commands.ExitUsage || !strings.Contains(r.err, "set COSIGN_PASSWORD") {
		t.Fatalf("no password: %+v", r)
	}
}
