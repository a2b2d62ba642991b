package main

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/kong"
)

// Kong's own mapper for strings passes every value through encoding/json
// (a marshal and an unmarshal), which replaces each byte of invalid UTF-8
// with U+FFFD: `tine init $'r\xff'` created "r\uFFFD", and `tine record
// -- ls $'f\xff'` ran ls on a file the user did not name. rawStringMapper
// sets the word as the user gave it; a verb that cannot take such bytes
// says so itself.

// rawStringMappers are the options that install rawStringMapper for every
// string-kinded value (flags, arguments and the elements of string
// slices, passthrough commands included).
var rawStringMappers = []kong.Option{kong.KindMapper(reflect.String, rawStringMapper{})}

// rawStringMapper decodes a string value byte for byte.
type rawStringMapper struct{}

// Decode implements kong.Mapper.
func (rawStringMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return err
	}
	switch v := t.Value.(type) {
	case string:
		target.SetString(v)
	case fmt.Stringer:
		target.SetString(v.String())
	default:
		target.SetString(fmt.Sprint(v))
	}
	return nil
}
