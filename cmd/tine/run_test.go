package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/tinehq/tine/plumbing"
)

// tineRun runs one command line in-process and returns its status and
// output streams.
func tineRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// assertOneErrorLine checks the error contract: exactly one line on
// stderr, starting with prefix.
func assertOneErrorLine(t *testing.T, stderr, prefix string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Fatalf("stderr is not exactly one line: %q", stderr)
	}
	if !strings.HasPrefix(stderr, prefix) {
		t.Fatalf("stderr %q does not start with %q", stderr, prefix)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := []struct {
		args   []string
		prefix string
	}{
		{[]string{"frobnicate"}, "tine: "},
		{[]string{"hash-object", "--frob", "x"}, "tine hash-object: unknown flag --frob"},
		{[]string{"init", "--object-format", "md5"}, "tine init: "},
		{[]string{"rev-parse"}, "tine rev-parse: "},
		{[]string{"rev-parse", "a", "b"}, "tine rev-parse: "},
		// A flag the mode would ignore is refused, not dropped.
		{[]string{"update-ref", "heads/main", "abcd", "--old", "abcd", "--create"}, "tine update-ref: --old and --create cannot be combined"},
		{[]string{"update-ref", "--stdin", "heads/main"}, "tine update-ref: --stdin and REF/NEW arguments cannot be combined"},
		{[]string{"update-ref", "--stdin", "--old", "abcd"}, "tine update-ref: --old has no effect with --stdin"},
		{[]string{"update-ref", "heads/main"}, "tine update-ref: need REF and NEW"},
		{[]string{"hash-object", "--stdin", "file.txt"}, "tine hash-object: --stdin and FILE arguments cannot be combined"},
		{[]string{"hash-object"}, "tine hash-object: no input"},
		{[]string{"--repo", "x", "init"}, "tine init: --repo has no effect with init"},
		{[]string{"version", "--repo", "x"}, "tine version: --repo has no effect with version"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := tineRun(t, "", tc.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Fatalf("usage error printed on stdout: %q", stdout)
			}
			assertOneErrorLine(t, stderr, tc.prefix)
			if !strings.Contains(stderr, "--help") {
				t.Fatalf("usage error does not point at --help: %q", stderr)
			}
		})
	}
}

// TestHelpShowsExampleForEveryVerb: every command's --help, subcommands
// included (remote list, gate challenge show), ends with an example that
// runs that command (README, "tine <verb> --help shows ... an example").
func TestHelpShowsExampleForEveryVerb(t *testing.T) {
	parser, err := kong.New(&cli{})
	if err != nil {
		t.Fatal(err)
	}
	verbs := 0
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, node := range n.Children {
			if node.Type != kong.CommandNode {
				continue
			}
			p := append(append([]string(nil), path...), node.Name)
			name := strings.Join(p, " ")
			verbs++
			code, stdout, stderr := tineRun(t, "", append(p, "--help")...)
			if code != exitOK || stderr != "" {
				t.Fatalf("%s --help: exit %d, stderr %q", name, code, stderr)
			}
			_, example, ok := strings.Cut(stdout, "Example")
			// mcp's example is the client configuration that starts it.
			if !ok || !strings.Contains(example, "tine "+name) && !(name == "mcp" && strings.Contains(example, `"args": ["mcp"`)) {
				t.Errorf("%s --help shows no example of tine %s:\n%s", name, name, stdout)
			}
			walk(node, p)
		}
	}
	walk(parser.Model.Node, nil)
	if verbs < 12 {
		t.Fatalf("grammar has %d verbs, want at least 12", verbs)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := tineRun(t, "", "--version")
	if code != exitOK || !strings.HasPrefix(stdout, "tine ") {
		t.Fatalf("--version: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = tineRun(t, "", "version", "--json")
	if code != exitOK {
		t.Fatalf("version --json: exit %d", code)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("version --json is not one JSON object: %v\n%s", err, stdout)
	}
	if m["command"] != "version" || m["version"] == "" || m["go"] == nil {
		t.Fatalf("version --json fields: %v", m)
	}
}

func TestWriteJSON(t *testing.T) {
	type inner struct {
		Zeta  int `json:"zeta"`
		Alpha int `json:"alpha"`
	}
	type result struct {
		Name  string `json:"name"`
		Big   uint64 `json:"big"`
		Inner inner  `json:"inner"`
		HTML  string `json:"html"`
	}
	var buf bytes.Buffer
	err := writeJSON(&buf, "demo-verb", result{Name: "x", Big: 1<<63 + 1, Inner: inner{1, 2}, HTML: "<a&b>"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "big": 9223372036854775809,
  "command": "demo-verb",
  "html": "<a&b>",
  "inner": {
    "alpha": 2,
    "zeta": 1
  },
  "name": "x"
}
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if err := writeJSON(&buf, "v", []int{1}); err == nil {
		t.Fatal("a non-object result was accepted")
	}
	if err := writeJSON(&buf, "v", map[string]int{"command": 1}); err == nil {
		t.Fatal("a result with its own command field was accepted")
	}
	buf.Reset()
	if err := writeJSON(&buf, "v", (*result)(nil)); err != nil || buf.String() != "{\n  \"command\": \"v\"\n}\n" {
		t.Fatalf("nil result: %v %q", err, buf.String())
	}
}

func TestReportError(t *testing.T) {
	cases := []struct {
		verb string
		err  error
		code int
		line string
	}{
		{"update-ref", errors.New("update-ref: ref heads/main is stale: expected a, found b"), 1, "tine update-ref: ref heads/main is stale: expected a, found b\n"},
		{"update-ref", errors.New("update-ref --stdin: line 2: bad"), 1, "tine update-ref: --stdin: line 2: bad\n"},
		{"fsck", fmt.Errorf("wrapped: %w", errors.New("first\nsecond\n")), 1, "tine fsck: wrapped: first; second\n"},
		{"init", usagef("bad flags"), 2, "tine init: bad flags; see tine init --help\n"},
		{"", usagef("no such verb"), 2, "tine: no such verb; see tine --help\n"},
		{"fsck", &silentError{code: 1}, 1, ""},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		if code := reportError(&buf, tc.verb, tc.err); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.err, code, tc.code)
		}
		if buf.String() != tc.line {
			t.Errorf("%v: line %q, want %q", tc.err, buf.String(), tc.line)
		}
	}
}

func TestWantColor(t *testing.T) {
	env := func(noColor string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
	}
	if wantColor(&bytes.Buffer{}, env("")) {
		t.Fatal("colour chosen for a non-terminal writer")
	}
	p := &printer{w: &bytes.Buffer{}, color: false}
	if p.good("ok") != "ok" {
		t.Fatal("styled text without colour")
	}
	p.color = true
	if p.bad("x") != styleRed+"x"+styleReset {
		t.Fatal("colour not applied")
	}
	if wantColor(nil, env("1")) {
		t.Fatal("NO_COLOR ignored")
	}
}

func TestReportErrorAddsHint(t *testing.T) {
	var buf bytes.Buffer
	err := fmt.Errorf("rev-parse: revision %q: %w", "nope", plumbing.ErrUnknownRevision)
	if code := reportError(&buf, "rev-parse", err); code != exitFailure {
		t.Fatalf("exit %d", code)
	}
	want := "tine rev-parse: revision \"nope\": unknown revision; list names with tine refs\n"
	if buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
}

// fsckClean requires tine fsck to find no problem.
func fsckClean(t *testing.T, repo string) {
	t.Helper()
	if code, out, errs := tineRun(t, "", "--repo", repo, "fsck"); code != 0 {
		t.Fatalf("fsck: %d\n%s%s", code, out, errs)
	}
}
