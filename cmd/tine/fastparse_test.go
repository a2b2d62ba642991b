package main

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestFastParseAgreesWithKong: every command line the hand parser of the
// hot verbs accepts, the full kong grammar accepts too, selecting the
// same verb with the same argument and flag values and the same global
// flags; everything else the hand parser leaves to kong (so kong's help,
// --version and errors are what the user sees). The lines are generated:
// every short line over a vocabulary of the verbs' own flags in each
// form (with good, bad, empty, signed and zero-padded values), the
// global flags, help and version flags, "--", "-", other verbs and plain
// words, then many longer random ones.
func TestFastParseAgreesWithKong(t *testing.T) {
	full, fullParse := fullGrammar(t)
	accepted, lines := 0, 0
	check := func(args []string) {
		lines++
		g, verb, cmd, ok := fastParse(args)
		if !ok {
			return
		}
		accepted++
		kctx, fc, fexited, err := fullParse(args)
		if err != nil || fexited >= 0 {
			t.Fatalf("%q: the hand parser accepts it, kong: exit %d, %v", args, fexited, err)
		}
		if want := verbPath(kctx.Selected()); verb != want {
			t.Fatalf("%q: the hand parser selects %q, kong %q", args, verb, want)
		}
		if got, want := reflect.ValueOf(cmd).Elem().Interface(), verbTarget(kctx); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: the hand parser parses %+v, kong %+v", args, got, want)
		}
		if g != fc.globals {
			t.Fatalf("%q: the hand parser's globals %+v, kong's %+v", args, g, fc.globals)
		}
	}
	verbs := []string{"rev-parse", "update-ref", "log"}
	words := fastParseWords(full, verbs)
	// Every line of a verb and one word before or after it, and of a hot
	// verb and two words after it.
	for _, v := range append(verbs, "refs", "x") {
		check([]string{v})
		for _, a := range words {
			check(append([]string{v}, a...))
			check(append(slices.Clone(a), v))
			for _, b := range words {
				if slices.Contains(verbs, v) {
					check(slices.Concat([]string{v}, a, b))
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(13, 6))
	for range 8000 {
		var args []string
		for range rng.IntN(2) {
			args = append(args, words[rng.IntN(len(words))]...)
		}
		args = append(args, verbs[rng.IntN(len(verbs))])
		for range rng.IntN(7) {
			args = append(args, words[rng.IntN(len(words))]...)
		}
		check(args)
	}
	t.Logf("%d command lines, %d parsed by hand", lines, accepted)
	if accepted < lines/50 {
		t.Fatalf("only %d of %d command lines parsed by hand; the table is too thin", accepted, lines)
	}
	// The forms scripts use are parsed by hand.
	for _, args := range [][]string{
		{"rev-parse", "heads/main"}, {"--repo", "r", "rev-parse", "tags/cas", "--json"},
		{"--repo=r", "update-ref", "tags/cas", "blob:blake3:00", "--old", "blob:blake3:01"},
		{"update-ref", "heads/main", "run:x", "--create", "--actor", "ci"}, {"update-ref", "--stdin"},
		{"--repo", "r", "log", "-n", "20", "heads/main"}, {"log", "--max-count=3", "--oneline", "--no-pager", "--color", "never"},
	} {
		if _, _, _, ok := fastParse(args); !ok {
			t.Errorf("%q: left to kong, want parsed by hand", args)
		}
	}
}

// fastParseWords returns the vocabulary of TestFastParseAgreesWithKong:
// each flag of the hot verbs and the global flags in every form, with
// values, plus words kong treats specially.
func fastParseWords(full *kong.Kong, verbs []string) [][]string {
	strs := []string{"x", "-1", "", "always", "purple"}
	ints := []string{"x", "0", "20", "010", "-1", "", "0x10", "1234567890"}
	words := [][]string{
		{"x"}, {"heads/main"}, {"main@{1}"}, {"y"}, {""}, {"-"}, {"--"}, {"-h"}, {"--help"}, {"-V"}, {"--version"},
		{"--bogus"}, {"--no-json"}, {"-x"}, {"-n"}, {"-n5"}, {"-n=5"}, {"-nn"}, {"log"}, {"refs"}, {"rev-parse"},
	}
	seen := map[string]bool{}
	var flags []*kong.Flag
	flags = append(flags, full.Model.Flags...)
	for _, n := range full.Model.Children {
		if slices.Contains(verbs, n.Name) {
			flags = append(flags, n.Flags...)
		}
	}
	for _, f := range flags {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		long := "--" + f.Name
		words = append(words, []string{long}, []string{long + "="}, []string{long + "=true"}, []string{long + "=false"})
		vals := strs
		switch {
		case f.IsBool():
			vals = nil
		case f.Value.Target.Kind() == reflect.Int:
			vals = ints
			if f.Short != 0 {
				for _, v := range ints {
					words = append(words, []string{"-" + string(f.Short), v})
				}
			}
		}
		for _, v := range vals {
			words = append(words, []string{long, v}, []string{long + "=" + v})
		}
	}
	return words
}

// TestHotVerbsSkipKong: a whole in-process `rev-parse` of a ref, the
// command scripts run by the hundred, allocates a small fraction of what
// parsing it with kong's one-verb grammar alone did (736 allocations,
// "Process start, session 6" in the README); most of what is left is
// opening the repository and reading the ref.
func TestHotVerbsSkipKong(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := tineRun(t, "", "init", dir); code != exitOK {
		t.Fatalf("init: %s", stderr)
	}
	blob := filepath.Join(dir, "blob")
	if err := os.WriteFile(blob, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := tineRun(t, "", "--repo", dir, "hash-object", "-w", blob)
	if code != exitOK {
		t.Fatalf("hash-object: %s", stderr)
	}
	oid := strings.TrimSpace(out)
	if code, _, stderr := tineRun(t, "", "--repo", dir, "update-ref", "tags/x", oid, "--create"); code != exitOK {
		t.Fatalf("update-ref: %s", stderr)
	}
	args := []string{"--repo", dir, "rev-parse", "tags/x"}
	var got strings.Builder
	if code := run(args, strings.NewReader(""), &got, io.Discard); code != exitOK || got.String() != oid+"\n" {
		t.Fatalf("rev-parse: exit %d, %q, want %q", code, got.String(), oid)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if code := run(args, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
			t.Fatalf("rev-parse: exit %d", code)
		}
	})
	t.Logf("rev-parse allocates %.0f times", allocs)
	if allocs > 400 {
		t.Fatalf("rev-parse allocates %.0f times, want at most 400 (is it parsed with kong?)", allocs)
	}
}
