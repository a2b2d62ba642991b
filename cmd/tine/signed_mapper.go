package main

import (
	"reflect"
	"sync"
	"time"

	"github.com/alecthomas/kong"
)

// Kong reads "-1" in `tine log -n -1` as a short flag, so a negative
// count or duration given as a separate word failed with kong's own
// "expected int value but got "-1" (short flag)", and following its
// advice (--max-count="-1") then met the verb's real rule. signedMapper lets an int
// or duration flag take such a word as its value, so the verb's own check
// names the rule the value breaks ("-n must be at least 0").

// signedMappers are the options that install signedMapper for ints and
// durations.
var signedMappers = []kong.Option{
	kong.KindMapper(reflect.Int, signedMapper{typ: reflect.TypeOf(0)}),
	kong.TypeMapper(reflect.TypeOf(time.Duration(0)), signedMapper{typ: reflect.TypeOf(time.Duration(0))}),
}

// defaultMappers is kong's own registry, built on first use, whose mapper
// for typ decodes the value once signedMapper has retyped the token.
var defaultMappers = sync.OnceValue(func() *kong.Registry { return kong.NewRegistry().RegisterDefaults() })

// signedMapper decodes a value of typ with kong's mapper, after retyping
// a following word that is a negative number ("-1", "-5s", "-.5s") from a
// short flag to a flag value.
type signedMapper struct{ typ reflect.Type }

// Decode implements kong.Mapper.
func (m signedMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t := ctx.Scan.Peek()
	if s, ok := t.Value.(string); ok && t.InferredType() == kong.ShortFlagToken && negativeNumber(s) {
		ctx.Scan.Pop()
		ctx.Scan.PushTyped(s, kong.FlagValueToken)
	}
	return defaultMappers().ForType(m.typ).Decode(ctx, target)
}

// negativeNumber reports whether s starts like a negative number: a minus
// sign, then a digit or a decimal point. No flag of tine's is spelled so.
func negativeNumber(s string) bool {
	return len(s) > 1 && s[0] == '-' && (s[1] >= '0' && s[1] <= '9' || s[1] == '.')
}
