package verify_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/addonpack/addonpack/pkg/verify"
)

// TestCreateTrustedRootFileBoundsItsInput: a material file is read to at
// most MaxTrustedRootSize bytes, whether it says how large it is (a
// regular file) or not (a FIFO fed without end), and nothing is written.
func TestCreateTrustedRootFileBoundsItsInput(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pem")
	if err := os.WriteFile(big, make([]byte, verify.MaxTrustedRootSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "endless.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() { // feeds the FIFO until the reader closes it
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	for _, in := range []string{big, fifo} {
		out := filepath.Join(dir, "root.json")
		_, err := verify.CreateTrustedRootFile(verify.RootFiles{FulcioChain: in}, verify.RootMaterial{}, out, false)
		if !errors.Is(err, verify.ErrTrustMaterial) || !strings.Contains(err.Error(), in) || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
			t.Errorf("%s: %v, want ErrTrustMaterial naming the file and the bound", in, err)
		}
		if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: output written: %v", in, err)
		}
	}
}
