package main

import (
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// Building kong's grammar for every verb reflects over every verb's struct
// and interpolates every help text: about 27k allocations and most of a
// short verb's process time (measured for issue 13). A command line that
// names its verb up front only needs that verb's grammar, so run parses it
// with a grammar holding the global flags (globals, which cli embeds) and
// that one verb, taken from cli's own field so the two can never disagree.
// Anything else (help, --version, no verb, an unknown verb, a parse error)
// is parsed again with the full grammar, so what the user sees is exactly
// what it always was.

// verbGrammar returns the grammar of the global flags (a *globals) and the
// option adding the one verb args selects, as kong would build it from
// that verb's cli field (its name, help and every other tag); nil when the
// command line does not start with a known verb (after global flags that
// take no help action). The verb is a command added to the root rather
// than a field of a struct made for it: making a struct type at run time
// (reflect.StructOf) cost about 15 page faults of every process start.
func verbGrammar(args []string) (any, kong.Option) {
	name, ok := leadingVerb(args)
	if !ok {
		return nil, nil
	}
	t := reflect.TypeFor[cli]()
	for i := range t.NumField() {
		f := t.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); !isCmd || !selectsVerb(f, name) {
			continue
		}
		return &globals{}, kong.DynamicCommand(verbName(f), f.Tag.Get("help"), f.Tag.Get("group"), reflect.New(f.Type).Interface(), string(f.Tag))
	}
	return nil, nil
}

// verbName is the name kong gives the verb field f: its name tag, else the
// field name in lower case.
func verbName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	return strings.ToLower(f.Name)
}

// leadingVerb returns the first word of args that is not a global flag,
// skipping only --repo (with its value); any other leading flag (-h,
// --help, -V, --version, or one kong would refuse) goes to the full
// grammar.
func leadingVerb(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--repo":
			i++
		case strings.HasPrefix(a, "--repo="):
		case strings.HasPrefix(a, "-"):
			return "", false
		default:
			return a, true
		}
	}
	return "", false
}

// selectsVerb reports whether word selects the verb field f, named as
// kong names it: the name tag, else the field name in lower case (every
// multi-word verb carries a name tag; TestVerbGrammarMatchesFullGrammar
// checks both against kong's model), or one of its aliases. It allocates
// nothing: run asks it of every verb field before the one typed.
func selectsVerb(f reflect.StructField, word string) bool {
	if n := f.Tag.Get("name"); n != "" {
		if n == word {
			return true
		}
	} else if strings.EqualFold(f.Name, word) && strings.ToLower(f.Name) == word {
		return true
	}
	for a := range strings.SplitSeq(f.Tag.Get("aliases"), ",") {
		if a != "" && a == word {
			return true
		}
	}
	return false
}
