package agents

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// Errors of the agent tools; each is wrapped with the argument or ref it
// concerns.
var (
	// ErrFlagLike means an argument begins with "-": tine mcp refuses
	// anything that could be read as an option.
	ErrFlagLike = errors.New("argument begins with '-'")
	// ErrTooLarge means an argument or a result is over its bound.
	ErrTooLarge = errors.New("over the bound")
	// ErrNotExperiment means a write tool was pointed outside experiments/.
	ErrNotExperiment = errors.New("agents write only under experiments/")
	// ErrReservedClaim means an attest claim has a kind only tine itself
	// writes (evaluation through evaluate, gate through tine gate run).
	ErrReservedClaim = errors.New("claim kind is reserved")
)

// checkInput enforces the bounds a tool's input type declares in its
// `max` tags (string bytes, number text bytes, integer maximum, list
// items) and refuses any string, alone or in a list, that begins with "-"
// or is not UTF-8 (a number's leading '-' is its sign). The
// schema check (decodeArgs) counts a string's code points, as JSON schema
// does; this one counts its bytes, which is what the bounds protect.
func checkInput(in any) error {
	return checkStruct("", reflect.ValueOf(in))
}

// checkStruct checks the fields of struct value v, naming them under
// prefix.
func checkStruct(prefix string, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := prefix + jsonName(f)
		max, err := fieldMax(f)
		if err != nil {
			return err
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		switch {
		case fv.Type() == numberType:
			// A number's text (decodeArgs checked its grammar): only
			// its length is bounded; a leading '-' is its sign.
			if n := fv.Len(); n > max {
				return fmt.Errorf("%s: %d bytes, at most %d: %w", name, n, max, ErrTooLarge)
			}
		case fv.Kind() == reflect.String:
			if err := checkString(name, fv.String(), max); err != nil {
				return err
			}
		case fv.Kind() == reflect.Int:
			if n := fv.Int(); n < 0 || n > int64(max) {
				return fmt.Errorf("%s: %d is outside 0..%d: %w", name, n, max, ErrTooLarge)
			}
		case fv.Kind() == reflect.Slice:
			if fv.Len() > max {
				return fmt.Errorf("%s: %d items, at most %d: %w", name, fv.Len(), max, ErrTooLarge)
			}
			for j := range fv.Len() {
				item, iname := fv.Index(j), fmt.Sprintf("%s[%d]", name, j)
				if item.Kind() == reflect.Struct {
					if err := checkStruct(iname+".", item); err != nil {
						return err
					}
				} else if err := checkString(iname, item.String(), maxItemBytes); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkString refuses a string over max bytes, one that is not UTF-8, and
// one that begins with "-".
func checkString(name, s string, max int) error {
	switch {
	case len(s) > max:
		return fmt.Errorf("%s: %d bytes, at most %d: %w", name, len(s), max, ErrTooLarge)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s: not UTF-8: %w", name, plumbing.ErrBadInput)
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("%s %.40q: %w; tine mcp never passes anything that could be read as an option", name, s, ErrFlagLike)
	}
	return nil
}

// maxItemBytes bounds each string of a list argument.
const maxItemBytes = 256

// fieldMax reads a field's `max` tag; every field of a tool input has one,
// so a field added without a bound is a programming error caught by the
// tests that register every tool.
func fieldMax(f reflect.StructField) (int, error) {
	n, err := strconv.Atoi(f.Tag.Get("max"))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("tool input field %s has no max tag", f.Name)
	}
	return n, nil
}

// jsonName is the field's JSON property name.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// experimentRef returns the canonical name of the ref name spells, which a
// write tool may move only when it is under experiments/. The name is
// resolved exactly as the CLI's writers resolve it (runs.WritableRef: a
// full name, refs/ prefix or not, or a short name of an existing ref), so
// "refs/heads/x", a short "main" meaning heads/main and spellings with ".."
// components are all refused here, before anything is written.
func experimentRef(ctx context.Context, r *plumbing.Repo, name string) (string, error) {
	ref, err := runs.WritableRef(ctx, r, name)
	if err != nil {
		return "", err
	}
	if refs.NamespaceOf(ref) != refs.NamespaceExperiments {
		return "", fmt.Errorf("ref %s: %w (the operator moves heads/, tags/ and promotions/ refs)", ref, ErrNotExperiment)
	}
	return ref, nil
}

// experimentRun checks that rev names a run through an experiments/ ref
// (REF, REF~N, REF@{n}), so evaluations and attestations an agent writes
// are about its own experiments, never about a run named by oid or by a
// heads/ or promotions/ ref.
func experimentRun(ctx context.Context, r *plumbing.Repo, rev string) error {
	_, ref, err := runs.ResolveRun(ctx, r, rev)
	if err != nil {
		return err
	}
	if ref == "" || refs.NamespaceOf(ref) != refs.NamespaceExperiments {
		via := "an object name"
		if ref != "" {
			via = "ref " + ref
		}
		return fmt.Errorf("run %s, named through %s: %w (name it by its experiments/ ref)", rev, via, ErrNotExperiment)
	}
	return nil
}
