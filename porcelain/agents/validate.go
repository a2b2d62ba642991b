package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// decodeArgs checks a tools/call's arguments against the tool's schema s
// and stores them in *dst, a value of the struct type s was built from.
// Absent or null arguments are the empty object, as clients send a tool
// without parameters. A refusal names the schema location and keyword it
// breaks (/properties/event: maxLength), so an agent can correct its call.
func decodeArgs(s *schema, raw json.RawMessage, dst reflect.Value) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("arguments: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments: want a JSON object, got %s", jsonType(v))
	}
	return decodeValue(s, "", v, dst)
}

// decodeValue checks v against s and stores it in dst; at names the
// schema location for errors.
func decodeValue(s *schema, at string, v any, dst reflect.Value) error {
	if v == nil {
		if s.Nullable {
			dst.SetZero()
			return nil
		}
		return typeError(s, at, v)
	}
	if dst.Kind() == reflect.Pointer {
		p := reflect.New(dst.Type().Elem())
		dst.Set(p)
		dst = p.Elem()
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return typeError(s, at, v)
		}
		return decodeObject(s, at, m, dst)
	case "array":
		list, ok := v.([]any)
		if !ok {
			return typeError(s, at, v)
		}
		if len(list) > s.Max {
			return fmt.Errorf("%s: maxItems: %d items, more than %d", where(at), len(list), s.Max)
		}
		out := reflect.MakeSlice(dst.Type(), len(list), len(list))
		for i, item := range list {
			if err := decodeValue(s.Items, at+"/items", item, out.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case "string":
		str, ok := v.(string)
		if !ok {
			return typeError(s, at, v)
		}
		if n := utf8.RuneCountInString(str); n > *s.MaxLength {
			return fmt.Errorf("%s: maxLength: %q contains %d Unicode code points, more than %d", where(at), str, n, *s.MaxLength)
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			return fmt.Errorf("%s: enum: %q is not one of %q", where(at), str, s.Enum)
		}
		dst.SetString(str)
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return typeError(s, at, v)
		}
		dst.SetBool(b)
	case "integer", "number":
		return decodeNumber(s, at, v, dst)
	}
	return nil
}

// decodeObject checks object m against s: no property s does not name,
// every required one present, each valid.
func decodeObject(s *schema, at string, m map[string]any, dst reflect.Value) error {
	var unknown []string
	for k := range m {
		if !slices.ContainsFunc(s.Props, func(p prop) bool { return p.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("%s: additionalProperties: unexpected properties %q", where(at), unknown)
	}
	var missing []string
	for _, name := range s.Required {
		if _, ok := m[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: required: missing properties %q", where(at), missing)
	}
	for _, p := range s.Props {
		v, ok := m[p.name]
		if !ok {
			continue
		}
		if err := decodeValue(p.s, at+"/properties/"+p.name, v, dst.Field(p.field)); err != nil {
			return err
		}
	}
	return nil
}

// decodeNumber checks a JSON number against an integer or number schema;
// a number is stored as its decimal text (numberType).
// An integer is any integral value (2.0 and 1e2 are integers, as JSON
// schema says), within 0..Max, decided on the decimal text exactly
// (exactInteger): read as a float64, 5.0000000000000001 would pass as 5
// and 2^53+1 as 2^53.
func decodeNumber(s *schema, at string, v any, dst reflect.Value) error {
	num, ok := v.(json.Number)
	if !ok {
		return typeError(s, at, v)
	}
	if s.Type == "number" {
		// The text itself goes to the tool (numberType); a value past
		// a double's range is refused here, what else a double cannot
		// keep by the tool (trust.NewScore).
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("%s: type: %s is not a finite number", where(at), num)
		}
		dst.SetString(string(num))
		return nil
	}
	n, neg, c := exactInteger(string(num))
	switch {
	case c == numFraction:
		return fmt.Errorf("%s: type: %s has type \"number\", want \"integer\"", where(at), num)
	case neg:
		return fmt.Errorf("%s: minimum: %s is less than 0", where(at), num)
	case c == numHuge || n > uint64(s.Max):
		return fmt.Errorf("%s: maximum: %s is more than %d", where(at), num, s.Max)
	}
	dst.SetInt(int64(n))
	return nil
}

// typeError says v is not of s's type.
func typeError(s *schema, at string, v any) error {
	want := strconv.Quote(s.Type)
	if s.Nullable {
		want = `"null" or ` + want
	}
	return fmt.Errorf("%s: type: got %s, want %s", where(at), jsonType(v), want)
}

// where names a schema location: the root, or a pointer below it.
func where(at string) string {
	if at == "" {
		return "arguments"
	}
	return "arguments " + at
}

// jsonType is the JSON type of decoded value v, quoted.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return `"null"`
	case bool:
		return `"boolean"`
	case string:
		return `"string"`
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return `"integer"`
		}
		return `"number"`
	case []any:
		return `"array"`
	default:
		return `"object"`
	}
}
