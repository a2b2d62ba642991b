package main

import (
	"io"
	"testing"

	"github.com/alecthomas/kong"
)

// TestOnlyPlainRevParseSkipsTheInterruptHandler: every verb runs under the
// interrupt handler except rev-parse of a revision without "~", which only
// reads (an oid, a prefix, a ref, REF@{n}); REV~N may index a derived run,
// a write, so it keeps the handler. Before, every verb installed it, and
// its two threads were about a tenth of a rev-parse process's CPU.
func TestOnlyPlainRevParseSkipsTheInterruptHandler(t *testing.T) {
	full, err := kong.New(&cli{})
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		if n.Type == kong.CommandNode && len(n.Children) == 0 {
			target := n.Target.Addr().Interface()
			if _, isRevParse := target.(*revParseCmd); !isRevParse && !catchesInterrupts(target) {
				t.Errorf("%s runs without the interrupt handler", n.Path())
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(full.Model.Node)

	for name, catch := range map[string]bool{
		"tags/x": false, "main": false, "refs/heads/main": false, "main@{1}": false,
		"blob:blake3:ec25f84cdcc4c64be89eadaa3c8a7b012b867163e69f89596c6989df8e4c35ae": false, "ec25f84c": false,
		"main~2": true, "main~": true, "main@{1}~1": true,
	} {
		if got := catchesInterrupts(&revParseCmd{Name: name}); got != catch {
			t.Errorf("rev-parse %s: catchesInterrupts = %v, want %v", name, got, catch)
		}
	}
}

// TestRevParseSkipsTheHandlerOnEveryParsePath: the decision is the same
// whether the command line went through the hand parser, the one-verb
// grammar or the full grammar (runCommand asks the selected verb).
func TestRevParseSkipsTheHandlerOnEveryParsePath(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		catch bool
	}{
		{[]string{"rev-parse", "tags/x"}, false},
		{[]string{"rev-parse", "--json=true", "tags/x"}, false},
		{[]string{"rev-parse", "tags/x~1"}, true},
		{[]string{"update-ref", "tags/x", "blob:blake3:00"}, true},
	} {
		if _, _, cmd, ok := fastParse(tc.args); ok && catchesInterrupts(cmd) != tc.catch {
			t.Errorf("%q by the hand parser: catchesInterrupts = %v, want %v", tc.args, !tc.catch, tc.catch)
		}
		g, verb := verbGrammar(tc.args)
		one, _, err := parse(g, tc.args, io.Discard, io.Discard, verb)
		if err != nil {
			t.Fatalf("%q by the one-verb grammar: %v", tc.args, err)
		}
		whole, _, err := parse(&cli{}, tc.args, io.Discard, io.Discard)
		if err != nil {
			t.Fatalf("%q by the full grammar: %v", tc.args, err)
		}
		for _, kctx := range []*kong.Context{one, whole} {
			if got := selectedCatches(kctx); got != tc.catch {
				t.Errorf("%q by kong: catchesInterrupts = %v, want %v", tc.args, got, tc.catch)
			}
		}
	}
}
