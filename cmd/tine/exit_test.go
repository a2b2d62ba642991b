package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tinehq/tine/plumbing"
)

// checkShowable fails unless line is valid UTF-8 whose only control
// character is its final newline, with no format character (bidi
// controls) and no line or paragraph separator.
func checkShowable(t *testing.T, line string) {
	t.Helper()
	if !utf8.ValidString(line) {
		t.Errorf("error line is not UTF-8: %q", line)
	}
	for _, r := range strings.TrimSuffix(line, "\n") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			t.Errorf("error line holds %U: %q", r, line)
		}
	}
}

// TestErrorLineEscapesInput: an error quoting a name the user did not
// choose (a ref name from a repository, a path) reaches the terminal
// with its escape sequences, bidi controls, separators and invalid UTF-8
// shown as visible escapes, still naming the input; other characters,
// non-ASCII letters included, are unchanged.
func TestErrorLineEscapesInput(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := tineRun(t, "", "init", dir); code != exitOK {
		t.Fatalf("init: %s", stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		// plumbing quotes a revision with %q, which escapes it already.
		{"ref name", []string{"--repo", dir, "rev-parse", "heads/\x1b]2;owned\x07\x1b[31mx\u202e\u2028\xffé"},
			`heads/\x1b]2;owned\a\x1b[31mx\u202e\u2028\xffé`},
		{"file name", []string{"--repo", dir, "hash-object", filepath.Join(dir, "no\x1b]2;owned\x07\u202e\u2029-é")},
			`no\x1b]2;owned\x07\u202e\u2029-é`},
		{"repository path", []string{"--repo", filepath.Join(dir, "gone\x1b[2J\u200fdir"), "refs"},
			`gone\x1b[2J\u200fdir`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := tineRun(t, "", tc.args...)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d: %q", code, exitFailure, stderr)
			}
			assertOneErrorLine(t, stderr, "tine ")
			checkShowable(t, stderr)
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("error line %q does not name %q", stderr, tc.want)
			}
		})
	}
}

// TestFsckShowsRefFileNameEscaped: a ref file whose name holds an escape
// sequence (a copied or pulled repository chose it) is reported by fsck
// with the name escaped, in the line's subject as in its message.
func TestFsckShowsRefFileNameEscaped(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := tineRun(t, "", "init", dir); code != exitOK {
		t.Fatalf("init: %s", stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tine", "refs", "heads", "a\x1b[31m\u202eb"), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := tineRun(t, "", "--repo", dir, "fsck")
	if code != exitFailure {
		t.Fatalf("fsck: exit %d, want %d: %s", code, exitFailure, stdout)
	}
	for _, line := range strings.SplitAfter(stdout, "\n") {
		checkShowable(t, line)
	}
	if !strings.Contains(stdout, `refs/heads/a\x1b[31m\u202eb: `) {
		t.Errorf("fsck does not name the ref file: %q", stdout)
	}
}

// TestErrorLineBound: an error of 100 KiB (a server's or a step's words
// quoted whole) is shown as one line of at most maxErrorLine bytes of its
// text, a note of how many bytes were left out and the hint.
func TestErrorLineBound(t *testing.T) {
	huge := strings.Repeat("é\x1b", 100<<10/3)
	err := fmt.Errorf("rev-parse: revision %q: %s: %w", "x", huge, plumbing.ErrUnknownRevision)
	var buf bytes.Buffer
	if code := reportError(&buf, "rev-parse", err); code != exitFailure {
		t.Fatalf("exit %d", code)
	}
	line := buf.String()
	assertOneErrorLine(t, line, `tine rev-parse: revision "x": é\x1bé\x1b`)
	checkShowable(t, line)
	if len(line) > maxErrorLine+200 {
		t.Errorf("error line of %d bytes, want at most %d", len(line), maxErrorLine+200)
	}
	if !strings.HasSuffix(line, " more bytes not shown); list names with tine refs\n") {
		t.Errorf("error line does not end with the note and the hint: ...%q", line[max(0, len(line)-200):])
	}
	if msg := oneLine(err.Error()); len(msg) > maxErrorLine+len("... (NNNNNNN more bytes not shown)") {
		t.Errorf("oneLine gave %d bytes", len(msg))
	}
}

// TestErrorLineKeepsText: a message of printable text (non-ASCII letters,
// backslashes, quotes) is unchanged.
func TestErrorLineKeepsText(t *testing.T) {
	var buf bytes.Buffer
	msg := `open C:\runs\ünïcødé "名前" ✓: no such file`
	reportError(&buf, "show", errors.New(msg))
	if buf.String() != "tine show: "+msg+"\n" {
		t.Fatalf("got %q", buf.String())
	}
}
