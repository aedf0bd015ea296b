package sign

import (
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// TestParseFormat: the three storage schemes parse, "" is the library's
// zero value (classic), and anything else is refused naming the value and
// the accepted ones.
func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatClassic, "classic": FormatClassic, "bundle": FormatBundle, "both": FormatBoth} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Bundle", "bundles", "classic,bundle", " both", "oci"} {
		_, err := ParseFormat(in)
		if !errors.Is(err, ErrSign) || errdef.ClassOf(err) != errdef.ErrInvalid {
			t.Errorf("ParseFormat(%q): %v, want ErrSign", in, err)
			continue
		}
		for _, s := range []string{in, "bundle", "classic", "both"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("ParseFormat(%q): %q does not name %q", in, err, s)
			}
		}
	}
}
