package main

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// Streaming --json output.
//
// writeJSONWhole holds a result three more times before printing it: as
// JSON, as decoded maps (a map, boxed values and strings per field of
// every entry) and as the indented text. For `log --all --json` of 30,000
// events that was most of a 190 MiB peak. streamJSON prints the same
// bytes from the result itself: the top-level struct's members sorted by
// key, each member encoded alone, and a list member one element at a
// time, each element encoded exactly as writeJSONWhole encodes it (encode,
// decode with exact numbers, encode indented at its depth), so what is
// held beside the result is one element's encoding.

// jsonMember is one member of the top-level object: its key and value.
type jsonMember struct {
	name string
	v    reflect.Value
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// streamJSON writes result as writeJSONWhole would when it is a struct
// or a non-nil pointer to one whose members it can name exactly
// (jsonMembers); ok is false, and nothing is written, otherwise.
func streamJSON(w io.Writer, command string, result any) (ok bool, err error) {
	v := reflect.ValueOf(result)
	for v.IsValid() && !opaqueJSON(v.Type()) && v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || opaqueJSON(v.Type()) || v.Kind() != reflect.Struct {
		return false, nil
	}
	members, ok := jsonMembers(v.Type(), v)
	if !ok {
		return false, nil
	}
	if slices.ContainsFunc(members, func(m jsonMember) bool { return m.name == "command" }) {
		return true, fmt.Errorf("result of %s already has a \"command\" field", command)
	}
	members = append(members, jsonMember{name: "command", v: reflect.ValueOf(command)})
	slices.SortFunc(members, func(a, b jsonMember) int { return strings.Compare(a.name, b.name) })
	bw := bufio.NewWriterSize(w, 64<<10)
	var enc elementEncoder
	bw.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			bw.WriteByte(',')
		}
		key, err := enc.encode(reflect.ValueOf(m.name), "")
		if err != nil {
			return true, err
		}
		bw.WriteString("\n  ")
		bw.Write(key)
		bw.WriteString(": ")
		if err := enc.writeMember(bw, m.v); err != nil {
			return true, err
		}
	}
	bw.WriteString("\n}\n")
	return true, bw.Flush()
}

// writeMember writes a top-level member's value: a non-empty list one
// element at a time, anything else whole.
func (enc *elementEncoder) writeMember(bw *bufio.Writer, v reflect.Value) error {
	t := v.Type()
	if t.Kind() != reflect.Slice || v.IsNil() || v.Len() == 0 || t.Elem().Kind() == reflect.Uint8 || opaqueJSON(t) {
		b, err := enc.encode(v, "  ")
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	}
	bw.WriteByte('[')
	for i := range v.Len() {
		if i > 0 {
			bw.WriteByte(',')
		}
		b, err := enc.encode(v.Index(i), "    ")
		if err != nil {
			return err
		}
		bw.WriteString("\n    ")
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	_, err := bw.WriteString("\n  ]")
	return err
}

// elementEncoder encodes one value as writeJSONWhole encodes it inside
// the whole, reusing its buffer.
type elementEncoder struct {
	buf bytes.Buffer
}

// encode returns v's JSON as writeJSONWhole would print it at a depth
// whose lines start with prefix: encoded (through its address when it
// has one, as json.Marshal of the whole reaches it, so methods on the
// pointer apply alike), decoded keeping numbers' text, encoded again
// with sorted keys, HTML characters as they are, indented. The result is
// valid until the next call.
func (enc *elementEncoder) encode(v reflect.Value, prefix string) ([]byte, error) {
	x := v.Interface()
	if v.CanAddr() {
		x = v.Addr().Interface()
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("encoding result as JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var a any
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("encoding result as JSON: %w", err)
	}
	enc.buf.Reset()
	e := json.NewEncoder(&enc.buf)
	e.SetEscapeHTML(false)
	e.SetIndent(prefix, "  ")
	if err := e.Encode(a); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(enc.buf.Bytes(), []byte("\n")), nil
}

// opaqueJSON reports whether encoding/json encodes values of t through
// their own methods rather than field by field.
func opaqueJSON(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
		p.Implements(jsonMarshalerType) || p.Implements(textMarshalerType)
}

// jsonMembers lists the members encoding/json writes for the struct v of
// type t (v invalid for a nil embedded pointer: its fields are named but
// not written), in field order. ok is false where encoding/json's rules
// are more than this follows (tag options other than omitempty, tagged or
// non-struct embedded fields, unusual tag names, two fields with one
// name): the caller then encodes the whole.
func jsonMembers(t reflect.Type, v reflect.Value) (members []jsonMember, ok bool) {
	var names []string
	if !collectMembers(t, v, &members, &names) {
		return nil, false
	}
	slices.Sort(names)
	if len(slices.Compact(names)) != len(names) {
		return nil, false
	}
	return members, true
}

// collectMembers appends t's members to members (those v writes) and
// their names to names (all of them, for the clash check).
func collectMembers(t reflect.Type, v reflect.Value, members *[]jsonMember, names *[]string) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous {
			if name != "" || !embedded(f, v, members, names) {
				return false
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if opts != "" && opts != "omitempty" || !plainTagName(name) {
			return false
		}
		if name == "" {
			name = f.Name
		}
		*names = append(*names, name)
		if !v.IsValid() {
			continue
		}
		fv := v.Field(i)
		if opts == "omitempty" && emptyJSON(fv) {
			continue
		}
		*members = append(*members, jsonMember{name: name, v: fv})
	}
	return true
}

// embedded collects the members of the untagged embedded field f of v:
// an exported struct or pointer to one (skipped when nil, as
// encoding/json does). An unexported one is left to encoding/json, which
// reads fields that reflection does not hand out.
func embedded(f reflect.StructField, v reflect.Value, members *[]jsonMember, names *[]string) bool {
	if !f.IsExported() {
		return false
	}
	ft := f.Type
	var fv reflect.Value
	if v.IsValid() {
		fv = v.FieldByIndex(f.Index)
	}
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
		if fv.IsValid() {
			if fv.IsNil() {
				fv = reflect.Value{}
			} else {
				fv = fv.Elem()
			}
		}
	}
	if ft.Kind() != reflect.Struct || opaqueJSON(ft) {
		return false
	}
	return collectMembers(ft, fv, members, names)
}

// plainTagName reports whether a tag's name is empty or of letters,
// digits and underscores: names encoding/json takes as they are.
func plainTagName(name string) bool {
	for _, r := range name {
		if r != '_' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// emptyJSON is encoding/json's omitempty test.
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
