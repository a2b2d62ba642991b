package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// schema is the JSON schema of one tool input type, or of one of its
// fields, built from the Go type by reflection: JSON types, descriptions
// (the `jsonschema` tag), required properties (fields without omitempty),
// closed objects, and the bounds of the `max` and `enum` tags. It is what
// tools/list publishes and what tools/call checks arguments against
// (validate.go), so the two cannot drift apart.
type schema struct {
	// Type is the JSON type; Nullable adds "null" (a pointer or a slice,
	// which Go decodes from null).
	Type     string
	Nullable bool
	// Description is the field's `jsonschema` tag.
	Description string
	// Props are an object's properties in field order; Required names the
	// ones without omitempty.
	Props    []prop
	Required []string
	// Items is an array's item schema.
	Items *schema
	// Enum lists a string's allowed values.
	Enum []string
	// MaxLength bounds a string (Unicode code points, as JSON schema
	// counts); Max bounds an integer (its minimum is 0) or an array's
	// items. HasMax says Max is set.
	MaxLength *int
	Max       int
	HasMax    bool
}

// numberType is the Go type of a "number" field: json.Number, the
// decimal text as sent, so a tool reads the value exactly (a float64
// would round 0.1000000000000000055511151231257827 to 0.1 and 2^53+1 to
// 2^53 before any check saw them).
var numberType = reflect.TypeFor[json.Number]()

// prop is one object property: its JSON name, its schema and the index of
// the struct field it decodes into.
type prop struct {
	name  string
	field int
	s     *schema
}

// schemaFor builds the schema of struct type t, a tool's input.
func schemaFor(t reflect.Type) (*schema, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("tool input type %s is not a struct", t)
	}
	s := &schema{Type: "object"}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			return nil, fmt.Errorf("tool input field %s is not exported", f.Name)
		}
		max, err := fieldMax(f)
		if err != nil {
			return nil, err
		}
		p, err := fieldSchema(f, f.Type, max)
		if err != nil {
			return nil, err
		}
		p.Description = f.Tag.Get("jsonschema")
		name := jsonName(f)
		s.Props = append(s.Props, prop{name: name, field: i, s: p})
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); !strings.Contains(","+opts+",", ",omitempty,") {
			s.Required = append(s.Required, name)
		}
	}
	return s, nil
}

// fieldSchema is the schema of field f of Go type t bounded by max.
func fieldSchema(f reflect.StructField, t reflect.Type, max int) (*schema, error) {
	nullable := false
	if t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	s := &schema{Nullable: nullable}
	if t == numberType {
		s.Type = "number"
		return s, nil
	}
	switch t.Kind() {
	case reflect.String:
		s.Type, s.MaxLength = "string", &max
		if enum := f.Tag.Get("enum"); enum != "" {
			s.Enum = strings.Split(enum, "|")
		}
	case reflect.Int:
		s.Type, s.Max, s.HasMax = "integer", max, true
	case reflect.Bool:
		s.Type = "boolean"
	case reflect.Slice:
		s.Type, s.Nullable, s.Max, s.HasMax = "array", true, max, true
		switch el := t.Elem(); el.Kind() {
		case reflect.String:
			n := maxItemBytes
			s.Items = &schema{Type: "string", MaxLength: &n}
		case reflect.Struct:
			items, err := schemaFor(el)
			if err != nil {
				return nil, err
			}
			s.Items = items
		default:
			return nil, fmt.Errorf("tool input field %s: lists of %s are not supported", f.Name, el)
		}
	default:
		return nil, fmt.Errorf("tool input field %s: type %s is not supported", f.Name, t)
	}
	return s, nil
}

// MarshalJSON writes the schema with its keys in a fixed order and its
// properties in field order, as a client shows them.
func (s *schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	key := func(k string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(v)
		b.Write(vb)
		return err
	}
	var typ any = s.Type
	if s.Nullable {
		typ = []string{"null", s.Type}
	}
	if err := key("type", typ); err != nil {
		return nil, err
	}
	if s.Type == "object" {
		var props bytes.Buffer
		props.WriteByte('{')
		for i, p := range s.Props {
			if i > 0 {
				props.WriteByte(',')
			}
			nb, _ := json.Marshal(p.name)
			pb, err := json.Marshal(p.s)
			if err != nil {
				return nil, err
			}
			props.Write(nb)
			props.WriteByte(':')
			props.Write(pb)
		}
		props.WriteByte('}')
		key("properties", json.RawMessage(props.Bytes()))
		if len(s.Required) > 0 {
			key("required", s.Required)
		}
		key("additionalProperties", false)
	}
	if s.Items != nil {
		if err := key("items", s.Items); err != nil {
			return nil, err
		}
	}
	if s.Description != "" {
		key("description", s.Description)
	}
	if len(s.Enum) > 0 {
		key("enum", s.Enum)
	}
	switch {
	case s.Type == "integer" && s.HasMax:
		key("minimum", 0)
		key("maximum", s.Max)
	case s.Type == "array" && s.HasMax:
		key("maxItems", s.Max)
	}
	if s.MaxLength != nil {
		key("maxLength", *s.MaxLength)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
