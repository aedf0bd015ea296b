package docs_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A block is a fenced shell block of a document: ```sh (every line a
// command, comments and continuations as bash reads them) or ```console
// (the lines starting with "$ " are commands, the rest their output).
type block struct {
	line   int    // of the opening fence
	lang   string // sh or console
	notRun string // the reason given by a <!-- not-run: REASON --> comment on the line before
	text   []string
}

// A command is one command of a block, as written, with the exit code its
// trailing "# exit N" comment documents (else 0).
type command struct {
	line int // in the document
	text string
	want int
}

var (
	notRunMarker = regexp.MustCompile(`^<!--\s*not-run:(.*?)-->$`)
	wantExit     = regexp.MustCompile(`#\s*exit (\d+)(:|\s*$)`) // "# exit 9: why", not "# exit 10 if …"
)

// shellBlocks returns the sh and console blocks of md. A block preceded by
// an HTML comment must be marked "not-run: REASON", with a reason; another
// comment there is an error, so that no block is left out by accident.
func shellBlocks(md string) ([]block, error) {
	var (
		blocks []block
		cur    *block
		inside bool // a fence of another language
		prev   string
	)
	for i, l := range strings.Split(md, "\n") {
		switch {
		case cur == nil && !inside && strings.HasPrefix(l, "```"):
			lang := strings.TrimSpace(strings.TrimPrefix(l, "```"))
			if lang != "sh" && lang != "console" {
				inside = true
				break
			}
			cur = &block{line: i + 1, lang: lang}
			if strings.HasPrefix(prev, "<!--") {
				m := notRunMarker.FindStringSubmatch(prev)
				if m == nil {
					return nil, fmt.Errorf("line %d: the comment before a %s block must be <!-- not-run: REASON -->, not %s", i+1, lang, prev)
				}
				if cur.notRun = strings.TrimSpace(m[1]); cur.notRun == "" {
					return nil, fmt.Errorf("line %d: a not-run block needs a reason", i+1)
				}
			}
		case inside && strings.TrimSpace(l) == "```":
			inside = false
		case cur != nil && strings.TrimSpace(l) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text = append(cur.text, l)
		}
		if strings.TrimSpace(l) != "" {
			prev = strings.TrimSpace(l)
		}
	}
	if cur != nil || inside {
		return nil, fmt.Errorf("an unterminated code block")
	}
	return blocks, nil
}

// commands returns the block's commands in order.
func (b block) commands() []command {
	var out []command
	for i := 0; i < len(b.text); i++ {
		l := b.text[i]
		if b.lang == "console" {
			if c, ok := strings.CutPrefix(l, "$ "); ok {
				out = append(out, command{line: b.line + 1 + i, text: c, want: exitOf(c)})
			}
			continue
		}
		if s := strings.TrimSpace(l); s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		start := i
		for strings.HasSuffix(b.text[i], "\\") && i+1 < len(b.text) {
			i++
		}
		out = append(out, command{line: b.line + 1 + start, text: strings.Join(b.text[start:i+1], "\n"), want: exitOf(b.text[i])})
	}
	return out
}

func exitOf(line string) int {
	if m := wantExit.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}
