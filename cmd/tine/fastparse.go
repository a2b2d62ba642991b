package main

import "strings"

// Even the one-verb grammar (grammar.go) costs kong reflecting over the
// verb's struct, interpolating its help texts, validating and tracing:
// about 8% of a `tine rev-parse` process's profile and 50 of its page
// faults (issue 13 item 6).
// The hottest plumbing verbs, which scripts run by the hundred, are
// therefore parsed by hand when their command line uses only the plain
// forms below; any other line (help, --version, a short flag other than
// -n, --flag=value on a bool, a value that starts with "-", an empty
// value, a flag given twice, "--", too few or too many arguments, any
// unknown word) is left to kong, so what kong would print or refuse it
// still prints or refuses. TestFastParseAgreesWithKong checks on a large
// generated set of command lines that every line accepted here is
// accepted by the full grammar with the same values.

// fastFlag is one flag of a hand-parsed verb; exactly one of b, s and n
// points at the field it sets.
type fastFlag struct {
	name  string // long name, without "--"
	short string // "-n", or ""
	b     *bool
	s     *string
	n     *int
}

// fastVerb is a hand-parsed verb: its command value, its own flags and
// its positional arguments in order, the first required of them required.
type fastVerb struct {
	cmd      verbRunner
	flags    []fastFlag
	args     []*string
	required int
}

// hotVerb returns the hand-parsed form of the verb named word.
func hotVerb(word string) (fastVerb, bool) {
	switch word {
	case "rev-parse":
		c := &revParseCmd{}
		return fastVerb{c, []fastFlag{{name: "json", b: &c.JSON}}, []*string{&c.Name}, 1}, true
	case "update-ref":
		c := &updateRefCmd{}
		return fastVerb{c, []fastFlag{
			{name: "old", s: &c.Old}, {name: "create", b: &c.Create}, {name: "stdin", b: &c.Stdin},
			{name: "actor", s: &c.Actor}, {name: "json", b: &c.JSON},
		}, []*string{&c.Ref, &c.New}, 0}, true
	case "log":
		c := &logCmd{}
		return fastVerb{c, []fastFlag{
			{name: "all", b: &c.All}, {name: "graph", b: &c.Graph}, {name: "oneline", b: &c.Oneline},
			{name: "max-count", short: "-n", n: &c.Limit}, {name: "json", b: &c.JSON},
		}, []*string{&c.Rev}, 0}, true
	}
	return fastVerb{}, false
}

// fastParse parses args when they name a hot verb in plain forms only:
// the global flags, the verb's name and command value; ok false leaves
// the line to kong.
func fastParse(args []string) (g globals, verb string, cmd verbRunner, ok bool) {
	g.Color = "auto"
	flags := make([]fastFlag, 3, 8)
	flags[0] = fastFlag{name: "repo", s: &g.Repo}
	flags[1] = fastFlag{name: "color", s: &g.Color}
	flags[2] = fastFlag{name: "no-pager", b: &g.NoPager}
	var v fastVerb
	var seen uint32
	npos := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "" || a == "-" {
			return g, "", nil, false
		}
		if a[0] != '-' {
			switch {
			case verb == "":
				if v, ok = hotVerb(a); !ok {
					return g, "", nil, false
				}
				verb, flags = a, append(flags, v.flags...)
			case npos < len(v.args):
				*v.args[npos] = a
				npos++
			default:
				return g, "", nil, false
			}
			continue
		}
		k, val, hasVal := flagOf(flags, a)
		if k < 0 || seen&(1<<k) != 0 {
			return g, "", nil, false
		}
		seen |= 1 << k
		f := flags[k]
		if f.b != nil {
			if hasVal {
				return g, "", nil, false
			}
			*f.b = true
			continue
		}
		if !hasVal {
			if i++; i == len(args) {
				return g, "", nil, false
			}
			val = args[i]
		}
		if val == "" || val[0] == '-' {
			return g, "", nil, false
		}
		switch {
		case f.n != nil:
			if *f.n, ok = plainInt(val); !ok {
				return g, "", nil, false
			}
		case f.name == "color" && val != "auto" && val != "always" && val != "never":
			return g, "", nil, false
		default:
			*f.s = val
		}
	}
	if verb == "" || npos < v.required {
		return g, "", nil, false
	}
	return g, verb, v.cmd, true
}

// flagOf finds the flag a names ("--name", "--name=value" or the short
// form) in flags; k is -1 when there is none.
func flagOf(flags []fastFlag, a string) (k int, val string, hasVal bool) {
	name, isLong := strings.CutPrefix(a, "--")
	if isLong {
		name, val, hasVal = strings.Cut(name, "=")
	}
	for k, f := range flags {
		if (isLong && f.name == name) || (!isLong && f.short != "" && f.short == a) {
			return k, val, hasVal
		}
	}
	return -1, "", false
}

// plainInt parses a decimal count without sign, leading zeros or
// separators (the forms kong's base-0 parse reads the same way), at most
// nine digits.
func plainInt(s string) (int, bool) {
	if len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
