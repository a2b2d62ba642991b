package main

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestVerbsRunWithoutKongHooks guards runVerb calling Run itself instead
// of kong's Context.Run: every command a user can select has a Run(*env)
// error, and no command defines what only kong's Run would honour
// (AfterRun hooks, Provide methods).
func TestVerbsRunWithoutKongHooks(t *testing.T) {
	full, err := kong.New(&cli{})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, typ := range []reflect.Type{n.Target.Type(), reflect.PointerTo(n.Target.Type())} {
			for i := range typ.NumMethod() {
				if m := typ.Method(i).Name; m == "AfterRun" || strings.HasPrefix(m, "Provide") {
					t.Errorf("%s: %s.%s would be ignored by runVerb", n.Path(), typ, m)
				}
			}
		}
		if n.Type == kong.CommandNode && len(n.Children) == 0 {
			if _, ok := n.Target.Addr().Interface().(verbRunner); !ok {
				t.Errorf("%s: %s has no Run(*env) error", n.Path(), n.Target.Type())
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(full.Model.Node)
}

// TestRunVerbRunsTheSelectedVerb: a parsed command line runs its verb's
// Run once, through the one-verb grammar and the full one alike.
func TestRunVerbRunsTheSelectedVerb(t *testing.T) {
	for _, args := range [][]string{{"version", "--json"}, {"--repo", "x", "version", "--json"}} {
		for _, full := range []bool{false, true} {
			var kctx *kong.Context
			var err error
			if full {
				kctx, _, err = parse(&cli{}, args, io.Discard, io.Discard)
			} else {
				g, verb := verbGrammar(args)
				kctx, _, err = parse(g, args, io.Discard, io.Discard, verb)
			}
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			var out strings.Builder
			e := &env{stdout: &out, stderr: io.Discard, verb: "version", getenv: func(string) string { return "" }}
			if err := runVerb(kctx, e); err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			if strings.Count(out.String(), `"command": "version"`) != 1 {
				t.Fatalf("%q (full %v) printed %q, want one version object", args, full, out.String())
			}
		}
	}
}
