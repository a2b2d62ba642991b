package agents

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the JSON schema the SDK infers for In, with the bounds of
// In's `max` tags written into it (maxLength, maximum, maxItems), so a
// client sees every bound and the SDK refuses oversized input before the
// handler runs. Properties stay closed (additionalProperties false).
func inputSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, err
	}
	if err := bound(s, reflect.TypeFor[In]()); err != nil {
		return nil, err
	}
	return s, nil
}

// bound writes the `max` and `enum` tags of struct type t into its schema
// s, and into the item schemas of its lists.
func bound(s *jsonschema.Schema, t reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		max, err := fieldMax(f)
		if err != nil {
			return err
		}
		p := s.Properties[jsonName(f)]
		if p == nil {
			return fmt.Errorf("tool input field %s: no schema property", f.Name)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String:
			p.MaxLength = &max
		case reflect.Int:
			lo, hi := 0.0, float64(max)
			p.Minimum, p.Maximum = &lo, &hi
		case reflect.Slice:
			p.MaxItems = &max
			if p.Items == nil {
				return fmt.Errorf("tool input field %s: no item schema", f.Name)
			}
			if ft.Elem().Kind() == reflect.Struct {
				if err := bound(p.Items, ft.Elem()); err != nil {
					return err
				}
			} else {
				n := maxItemBytes
				p.Items.MaxLength = &n
			}
		}
		if enum := f.Tag.Get("enum"); enum != "" {
			for _, e := range strings.Split(enum, "|") {
				p.Enum = append(p.Enum, e)
			}
		}
	}
	return nil
}
