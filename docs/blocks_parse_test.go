package docs_test

import (
	"reflect"
	"strings"
	"testing"
)

// TestShellBlocks: which blocks are shell blocks, what their commands are,
// which exit code each documents, and the refusal of a block left out
// without a reason or by a comment that is not a not-run marker.
func TestShellBlocks(t *testing.T) {
	for name, tc := range map[string]struct {
		md      string
		want    []command
		notRun  []string
		wantErr string
	}{
		"sh, comments, continuations, exit codes": {
			md: "text\n```sh\n# a comment\na --x \\\n  --y\n\nb   # exit 9: refused\nc   # exit 10 if it moved\n```\n",
			want: []command{
				{line: 4, text: "a --x \\\n  --y"},
				{line: 7, text: "b   # exit 9: refused", want: 9},
				{line: 8, text: "c   # exit 10 if it moved"},
			},
			notRun: []string{""},
		},
		"console: only the $ lines": {
			md:     "```console\n$ a b\noutput\n$ c # exit 3\n```\n",
			want:   []command{{line: 2, text: "a b"}, {line: 4, text: "c # exit 3", want: 3}},
			notRun: []string{""},
		},
		"other languages and a shell fence inside one": {
			md:     "```yaml\n```sh\n```\nx\n```sh\nd\n```\n",
			want:   []command{{line: 6, text: "d"}},
			notRun: []string{""},
		},
		"marked not-run": {
			md:     "<!-- not-run: needs a cluster (make e2e) -->\n\n```sh\nkubectl get pods\n```\n",
			notRun: []string{"needs a cluster (make e2e)"},
		},
		"a marker without a reason": {
			md:      "<!-- not-run: -->\n```sh\nx\n```\n",
			wantErr: "needs a reason",
		},
		"another comment before a block": {
			md:      "<!-- skip -->\n```sh\nx\n```\n",
			wantErr: "must be <!-- not-run: REASON -->",
		},
		"unterminated": {
			md:      "```sh\nx\n",
			wantErr: "unterminated",
		},
	} {
		t.Run(name, func(t *testing.T) {
			blocks, err := shellBlocks(tc.md)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []command
			var notRun []string
			for _, b := range blocks {
				notRun = append(notRun, b.notRun)
				if b.notRun == "" {
					got = append(got, b.commands()...)
				}
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(notRun, tc.notRun) {
				t.Errorf("commands %+v, not-run %q\nwant %+v, %q", got, notRun, tc.want, tc.notRun)
			}
		})
	}
}

// TestPeersIn: a peer CLI is needed where it starts a command or a
// pipeline stage, not where its name is an argument.
func TestPeersIn(t *testing.T) {
	for text, want := range map[string][]string{
		"addonpack verify x --key cosign.pub":                        nil,
		"cosign verify --key release.pub x":                          {"cosign"},
		"crane export x - | tar t && FOO=1 oras pull y; skopeo copy": {"crane", "oras", "skopeo"},
		"addonpack render x | kubectl apply -f -":                    nil,
		"cosign3 verify a || cosign verify b":                        {"cosign3", "cosign"},
	} {
		if got := peersIn(text); !reflect.DeepEqual(got, want) {
			t.Errorf("peersIn(%q) = %q, want %q", text, got, want)
		}
	}
}
