package runs

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/tinehq/tine/objects"
)

// OTLP attribute values (opentelemetry-proto's AnyValue in its JSON
// mapping) converted to JSON values an event can hold.

// otlpAttributes reads v's "attributes" list of {key, value: AnyValue}
// into members in order; a key given twice is refused.
func otlpAttributes(v objects.Value, where string) ([]objects.Member, error) {
	list, err := otlpList(v, "attributes")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	out := make([]objects.Member, 0, len(list))
	seen := map[string]bool{}
	for i, kv := range list {
		key := str(kv, "key")
		if key == "" {
			return nil, fmt.Errorf("%w: %s: attribute %d has no key", ErrBadOTLP, where, i)
		}
		if seen[key] {
			return nil, fmt.Errorf("%w: %s: attribute %q is given twice", ErrBadOTLP, where, key)
		}
		seen[key] = true
		val, _ := kv.Get("value")
		conv, err := otlpAnyValue(val, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: attribute %q: %v", ErrBadOTLP, where, key, err)
		}
		out = append(out, objects.Member{Key: key, Value: conv})
	}
	return out, nil
}

// otlpAnyValue converts an AnyValue: strings, booleans, integers (a JSON
// integer or decimal string; outside ±(2^53-1) kept as the decimal string,
// which canonical JSON cannot hold as a number), finite doubles, arrays,
// key-value lists as objects, bytes as their base64 string; {} is null.
func otlpAnyValue(v objects.Value, depth int) (objects.Value, error) {
	if depth > 64 {
		return objects.Value{}, errors.New("nested deeper than 64")
	}
	if v.Kind != objects.KindObject || len(v.Object) == 0 {
		if v.Kind == objects.KindObject || v.Kind == objects.KindNull {
			return objects.Null(), nil
		}
		return objects.Value{}, fmt.Errorf("a JSON %s is not an AnyValue", v.Kind)
	}
	if len(v.Object) != 1 {
		return objects.Value{}, errors.New("an AnyValue holds exactly one of stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue")
	}
	m := v.Object[0]
	switch m.Key {
	case "stringValue":
		if m.Value.Kind != objects.KindString {
			return objects.Value{}, errors.New("stringValue is not a string")
		}
		return m.Value, nil
	case "boolValue":
		if m.Value.Kind != objects.KindBool {
			return objects.Value{}, errors.New("boolValue is not a boolean")
		}
		return m.Value, nil
	case "intValue":
		n, err := otlpInt(m.Value)
		if err != nil {
			return objects.Value{}, fmt.Errorf("intValue: %w", err)
		}
		if n > 1<<53-1 || n < -(1<<53-1) {
			return objects.String(strconv.FormatInt(n, 10)), nil
		}
		return objects.Int(n), nil
	case "doubleValue":
		var f float64
		switch m.Value.Kind {
		case objects.KindFloat:
			f = m.Value.Float
		case objects.KindInt:
			f = float64(m.Value.Int)
		case objects.KindString:
			var err error
			if f, err = strconv.ParseFloat(m.Value.Str, 64); err != nil {
				return objects.Value{}, fmt.Errorf("doubleValue %q is not a number", clipText(m.Value.Str, 40))
			}
		default:
			return objects.Value{}, errors.New("doubleValue is not a number")
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return objects.Value{}, errors.New("doubleValue is not a finite number")
		}
		return objects.Float(f), nil
	case "bytesValue":
		if m.Value.Kind != objects.KindString {
			return objects.Value{}, errors.New("bytesValue is not a string")
		}
		return m.Value, nil
	case "arrayValue":
		vals, err := otlpList(m.Value, "values")
		if err != nil {
			return objects.Value{}, err
		}
		out := make([]objects.Value, len(vals))
		for i, e := range vals {
			if out[i], err = otlpAnyValue(e, depth+1); err != nil {
				return objects.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return objects.Array(out...), nil
	case "kvlistValue":
		kvs, err := otlpAttributesList(m.Value, depth)
		if err != nil {
			return objects.Value{}, err
		}
		return objects.ObjectValue(kvs...), nil
	}
	return objects.Value{}, fmt.Errorf("unknown AnyValue member %q", clipText(m.Key, 40))
}

// otlpAttributesList converts a KeyValueList's values.
func otlpAttributesList(v objects.Value, depth int) ([]objects.Member, error) {
	list, err := otlpList(v, "values")
	if err != nil {
		return nil, err
	}
	out := make([]objects.Member, 0, len(list))
	seen := map[string]bool{}
	for _, kv := range list {
		key := str(kv, "key")
		if seen[key] {
			return nil, fmt.Errorf("key %q is given twice", clipText(key, 40))
		}
		seen[key] = true
		val, _ := kv.Get("value")
		conv, err := otlpAnyValue(val, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", clipText(key, 40), err)
		}
		out = append(out, objects.Member{Key: key, Value: conv})
	}
	return out, nil
}
