package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestVerbGrammarMatchesFullGrammar checks that every verb of the full
// grammar, by name and alias, gets a one-verb grammar naming the same verb,
// and that what is not a plain leading verb gets none (the full grammar).
func TestVerbGrammarMatchesFullGrammar(t *testing.T) {
	full, err := kong.New(&cli{})
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range full.Model.Children {
		for _, word := range append([]string{node.Name}, node.Aliases...) {
			for _, args := range [][]string{{word}, {"--repo", "x", word}, {"--repo=x", word, "--json"}} {
				g, verb := verbGrammar(args)
				if g == nil {
					t.Fatalf("%q: no one-verb grammar", args)
				}
				k, err := kong.New(g, verb)
				if err != nil {
					t.Fatalf("%q: %v", args, err)
				}
				if len(k.Model.Children) != 1 || k.Model.Children[0].Name != node.Name {
					t.Fatalf("%q: grammar holds %d verbs, want only %s", args, len(k.Model.Children), node.Name)
				}
				if len(k.Model.Flags) != len(full.Model.Flags) {
					t.Fatalf("%q: %d global flags, want %d", args, len(k.Model.Flags), len(full.Model.Flags))
				}
			}
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"-h"}, {"--version"}, {"-V"}, {"--repo"}, {"frobnicate"}, {"--repo", "x", "--help", "init"}} {
		if g, _ := verbGrammar(args); g != nil {
			t.Fatalf("%q: got a one-verb grammar, want the full one", args)
		}
	}
}

// TestVersionAfterAVerb: --version and -V after a verb go through the
// one-verb grammar, which holds no version text; the full grammar prints
// it, as it does before any verb.
func TestVersionAfterAVerb(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"log", "--version"}, {"update-ref", "-V"}, {"--repo", "x", "rev-parse", "--version"}} {
		var out, errb strings.Builder
		if code := run(args, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, errb.String())
		}
		if out.String() != versionString()+"\n" {
			t.Fatalf("%q printed %q, want %q", args, out.String(), versionString()+"\n")
		}
	}
}

// TestShortVerbBuildsLittleGrammar bounds what `tine version` allocates
// in-process: building the grammar of every verb took ~27k allocations,
// one verb's takes well under 2k.
func TestShortVerbBuildsLittleGrammar(t *testing.T) {
	allocs := testing.AllocsPerRun(5, func() {
		if code := run([]string{"version"}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
			t.Fatalf("version: exit %d", code)
		}
	})
	if allocs > 3000 {
		t.Fatalf("tine version allocates %.0f times, want at most 3000 (is the whole grammar built?)", allocs)
	}
}

// TestRepoFlagReachesVerb checks --repo is read from the one-verb grammar
// wherever it stands on the command line.
func TestRepoFlagReachesVerb(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := tineRun(t, "", "init", dir); code != exitOK {
		t.Fatalf("init: %s", stderr)
	}
	for _, args := range [][]string{{"--repo", dir, "refs"}, {"--repo=" + dir, "refs"}, {"refs", "--repo", dir}} {
		code, _, stderr := tineRun(t, "", args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
	}
	code, _, stderr := tineRun(t, "", "refs", "--repo", dir+"/missing")
	if code != exitFailure || !strings.HasPrefix(stderr, "tine refs: ") {
		t.Fatalf("refs on a missing repository: exit %d, %q", code, stderr)
	}
}

// TestPackageInitAllocatesLittle runs the built binary with
// GODEBUG=inittrace=1 and bounds the allocations of tine's own package
// initialisers (main included), in count and in bytes: regexps and tables
// are built on first use, not at every process start (porcelain/gates
// alone made 3.7k allocations at init; porcelain/runs' commit-id pattern
// was 30 KiB, about eight freshly touched pages in every process).
func TestPackageInitAllocatesLittle(t *testing.T) {
	bin := buildTine(t)
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tine version: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/tinehq/tine/objects @2.2 ms, 0.016 ms clock, 4016 bytes, 54 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || (f[1] != "main" && !strings.HasPrefix(f[1], "github.com/tinehq/tine/")) {
			continue
		}
		seen++
		allocs, err := strconv.Atoi(f[len(f)-2])
		if err != nil {
			t.Fatalf("unreadable inittrace line %q", sc.Text())
		}
		size, err := strconv.Atoi(f[len(f)-4])
		if err != nil {
			t.Fatalf("unreadable inittrace line %q", sc.Text())
		}
		if allocs > 100 {
			t.Errorf("%s allocates %d times at init, want at most 100: %s", f[1], allocs, sc.Text())
		}
		if size > 8<<10 {
			t.Errorf("%s allocates %d bytes at init, want at most 8 KiB: %s", f[1], size, sc.Text())
		}
	}
	if seen < 5 {
		t.Fatalf("inittrace named %d tine packages, want several:\n%s", seen, stderr.String())
	}
}
