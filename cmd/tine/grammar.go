package main

import (
	"reflect"
	"strings"
)

// Building kong's grammar for every verb reflects over every verb's struct
// and interpolates every help text: about 27k allocations and most of a
// short verb's process time (measured for issue 13). A command line that
// names its verb up front only needs that verb's grammar, so run parses it
// with a grammar holding cli's global flags and that one verb, derived from
// cli by reflection so the two can never disagree. Anything else (help,
// --version, no verb, an unknown verb, a parse error) is parsed again with
// the full grammar, so what the user sees is exactly what it always was.

// verbGrammar returns a pointer to a struct with cli's global flags and
// only the verb field args selects, or nil when the command line does not
// start with a known verb (after global flags that take no help action).
func verbGrammar(args []string) any {
	name, ok := leadingVerb(args)
	if !ok {
		return nil
	}
	t := reflect.TypeOf(cli{})
	var fields []reflect.StructField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); !isCmd {
			fields = append(fields, f)
			continue
		}
		if !found && selectsVerb(f, name) {
			fields = append(fields, f)
			found = true
		}
	}
	if !found {
		return nil
	}
	for i := range fields {
		fields[i].Offset = 0 // StructOf lays the fields out itself
		fields[i].Index = nil
	}
	return reflect.New(reflect.StructOf(fields)).Interface()
}

// repoFlag reads the --repo value out of a grammar built by verbGrammar or
// a *cli.
func repoFlag(grammar any) string {
	return reflect.ValueOf(grammar).Elem().FieldByName("Repo").String()
}

// globalString reads a global string flag (Color) out of a grammar built
// by verbGrammar or a *cli.
func globalString(grammar any, field string) string {
	return reflect.ValueOf(grammar).Elem().FieldByName(field).String()
}

// globalBool reads a global bool flag (NoPager) the same way.
func globalBool(grammar any, field string) bool {
	return reflect.ValueOf(grammar).Elem().FieldByName(field).Bool()
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
