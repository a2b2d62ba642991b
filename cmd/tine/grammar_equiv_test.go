package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestOneVerbParsesAsFullGrammar: whatever the one-verb grammar accepts
// (run then runs it without asking the full grammar), the full grammar
// accepts too, selecting the same command with the same flag and argument
// values and the same global flags. It is checked for every command of
// the model (subcommands and aliases included) against command lines
// built from that command's own flags (values, enums, negations, shorts)
// and the usual edge cases (--, --help anywhere, unknown flags, extra
// arguments, global flags before and after the verb).
func TestOneVerbParsesAsFullGrammar(t *testing.T) {
	full, fullParse := fullGrammar(t)
	checked := 0
	var walk func(n *kong.Node, path []string)
	walk = func(n *kong.Node, path []string) {
		for _, c := range n.Children {
			if c.Type != kong.CommandNode {
				continue
			}
			names := append([]string{c.Name}, c.Aliases...)
			for i, name := range names {
				p := append(append([]string(nil), path...), name)
				for _, args := range equivArgs(p, c) {
					checked += compareGrammars(t, args, fullParse)
				}
				if i == 0 {
					walk(c, p)
				}
			}
		}
	}
	walk(full.Model.Node, nil)
	t.Logf("%d command lines", checked)
	if checked < 500 {
		t.Fatalf("only %d command lines parsed in the one-verb grammar; the table is too thin", checked)
	}
}

// equivArgs returns command lines for the command at path p.
func equivArgs(p []string, n *kong.Node) [][]string {
	with := func(extra ...string) []string { return append(append([]string(nil), p...), extra...) }
	out := [][]string{
		with(), with("x"), with("x", "y"), with("x", "y", "z"), with("--json"), with("--bogus"),
		with("--", "-x"), with("x", "--", "--json"), with("--help"), with("-h"), with("x", "--help"),
		with("--no-pager"), with("--color=never"), with("--color", "always"), with("--color=purple"),
		with("--repo", "r"), with("--repo=r", "x"), with("--version"),
		append([]string{"--repo", "r"}, with("x")...), append([]string{"--repo=r"}, with()...),
	}
	for node := n; node != nil; node = node.Parent {
		for _, f := range node.Flags {
			out = append(out, flagArgs(with, f)...)
		}
	}
	return out
}

// flagArgs returns command lines setting flag f in the ways a user may.
func flagArgs(with func(...string) []string, f *kong.Flag) [][]string {
	long := "--" + f.Name
	var out [][]string
	vals := []string{"1", "x", "-1", ""}
	if len(f.EnumSlice()) > 0 {
		vals = append(vals, f.EnumSlice()...)
		vals = append(vals, strings.Join(f.EnumSlice(), ","))
	}
	if f.IsBool() || f.IsCounter() {
		out = append(out, with(long), with(long, "x"), with(long+"=false"), with(long+"=true"), with(long, long))
	} else {
		for _, v := range vals {
			out = append(out, with(long, v), with(long+"="+v), with(long, v, "x"), with("x", long, v), with(long+"="+v, long+"="+v))
		}
		out = append(out, with(long))
	}
	if f.Negated || f.Tag.Negatable != "" {
		out = append(out, with("--no-"+f.Name), with(long, "--no-"+f.Name))
	}
	if f.Short != 0 {
		s := fmt.Sprintf("-%c", f.Short)
		out = append(out, with(s), with(s, "1"), with(s+"x"), with(s, "x", "y"))
	}
	return out
}

// fullGrammar returns the full kong grammar, silent, and a parse with it
// that returns the context, the parsed cli, the exit code kong asked for
// (-1 for none) and the error. The one parser serves every line: building
// it is most of a parse's cost, and kong resets every value to its
// default before a parse.
func fullGrammar(t *testing.T) (*kong.Kong, func(args []string) (*kong.Context, *cli, int, error)) {
	t.Helper()
	fc := &cli{}
	fexited := -1
	opts := []kong.Option{kong.Name("tine"), kong.Writers(io.Discard, io.Discard), kong.Vars{"version": versionString()},
		kong.Exit(func(code int) {
			if fexited < 0 {
				fexited = code
			}
		})}
	// parse (run.go) gives every grammar, full or one-verb, these mappers.
	full, err := kong.New(fc, append(opts, signedMappers...)...)
	if err != nil {
		t.Fatal(err)
	}
	return full, func(args []string) (*kong.Context, *cli, int, error) {
		fexited = -1
		kctx, err := full.Parse(args)
		return kctx, fc, fexited, err
	}
}

// compareGrammars parses args with both grammars and fails the test when
// the one-verb grammar's success is not the full grammar's; it returns 1
// when the one-verb grammar accepted args.
func compareGrammars(t *testing.T, args []string, fullParse func([]string) (*kong.Context, *cli, int, error)) int {
	t.Helper()
	g, verb := verbGrammar(args)
	if g == nil {
		return 0
	}
	one, exited, err := parse(g, args, io.Discard, io.Discard, verb)
	if err != nil || exited >= 0 {
		return 0 // run parses again with the full grammar
	}
	all, fc, fexited, ferr := fullParse(args)
	if ferr != nil || fexited >= 0 {
		t.Errorf("%q: one-verb grammar accepts it, full grammar: exit %d, %v", args, fexited, ferr)
		return 1
	}
	if a, b := verbPath(one.Selected()), verbPath(all.Selected()); a != b {
		t.Errorf("%q: one-verb grammar selects %q, full grammar %q", args, a, b)
	}
	if a, b := verbTarget(one), verbTarget(all); !reflect.DeepEqual(a, b) {
		t.Errorf("%q: one-verb grammar parses %+v, full grammar %+v", args, a, b)
	}
	if a := *g.(*globals); a != fc.globals {
		t.Errorf("%q: one-verb grammar's globals %+v, full grammar's %+v", args, a, fc.globals)
	}
	if a, b := one.Args, all.Args; !reflect.DeepEqual(a, b) {
		t.Errorf("%q: one-verb grammar's args %q, full grammar's %q", args, a, b)
	}
	return 1
}

// verbTarget returns the value of the top-level verb a parse selected.
func verbTarget(kctx *kong.Context) any {
	n := kctx.Selected()
	for n != nil && n.Parent != nil && n.Parent.Type == kong.CommandNode {
		n = n.Parent
	}
	if n == nil {
		return nil
	}
	return n.Target.Interface()
}
