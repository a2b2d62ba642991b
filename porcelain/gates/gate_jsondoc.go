package gates

import (
	"bytes"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// maxSettingsBytes bounds an agent CLI settings file read by gate setup and
// uninstall; a larger file is refused before it is parsed.
const maxSettingsBytes = 4 << 20

// encodeJSONDoc writes v as indented JSON (two spaces, trailing newline)
// keeping object members in their input order, so a user's settings file
// keeps its layout when gate setup merges an entry into it. Scalars take
// their canonical v3 text, which means the same number or string; an
// integer beyond 2^53 keeps its exact decimal digits.
func encodeJSONDoc(v objects.Value) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSONDoc(&buf, v, 0); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

func writeJSONDoc(buf *bytes.Buffer, v objects.Value, depth int) error {
	if depth > objects.MaxJSONDepth {
		return fmt.Errorf("JSON document nests deeper than %d", objects.MaxJSONDepth)
	}
	indent := func(d int) {
		buf.WriteByte('\n')
		for i := 0; i < d; i++ {
			buf.WriteString("  ")
		}
	}
	switch v.Kind {
	case objects.KindArray:
		if len(v.Array) == 0 {
			buf.WriteString("[]")
			return nil
		}
		buf.WriteByte('[')
		for i, e := range v.Array {
			if i > 0 {
				buf.WriteByte(',')
			}
			indent(depth + 1)
			if err := writeJSONDoc(buf, e, depth+1); err != nil {
				return err
			}
		}
		indent(depth)
		buf.WriteByte(']')
	case objects.KindObject:
		if len(v.Object) == 0 {
			buf.WriteString("{}")
			return nil
		}
		buf.WriteByte('{')
		for i, m := range v.Object {
			if i > 0 {
				buf.WriteByte(',')
			}
			indent(depth + 1)
			key, err := objects.CanonV3(objects.String(m.Key))
			if err != nil {
				return err
			}
			buf.Write(key)
			buf.WriteString(": ")
			if err := writeJSONDoc(buf, m.Value, depth+1); err != nil {
				return err
			}
		}
		indent(depth)
		buf.WriteByte('}')
	case objects.KindInt:
		if v.Big != nil {
			buf.WriteString(v.Big.String())
			return nil
		}
		fallthrough
	default:
		b, err := objects.CanonV3(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

// jdGet returns the value of key in object v and its index, or -1.
func jdGet(v objects.Value, key string) (objects.Value, int) {
	for i, m := range v.Object {
		if m.Key == key {
			return m.Value, i
		}
	}
	return objects.Value{}, -1
}

// jdSet replaces key's value in object v, or appends the member when
// v has no such key.
func jdSet(v *objects.Value, key string, val objects.Value) {
	if _, i := jdGet(*v, key); i >= 0 {
		v.Object[i].Value = val
		return
	}
	v.Object = append(v.Object, objects.Member{Key: key, Value: val})
}

// jdDelete removes key from object v.
func jdDelete(v *objects.Value, key string) {
	if _, i := jdGet(*v, key); i >= 0 {
		v.Object = append(v.Object[:i:i], v.Object[i+1:]...)
	}
}

// jdString returns key's value when it is a string.
func jdString(v objects.Value, key string) (string, bool) {
	m, i := jdGet(v, key)
	if i < 0 || m.Kind != objects.KindString {
		return "", false
	}
	return m.Str, true
}

// jdObject builds an object value from its members.
func jdObject(members ...objects.Member) objects.Value { return objects.ObjectValue(members...) }

// jdKV is a Member literal helper.
func jdKV(k string, v objects.Value) objects.Member { return objects.Member{Key: k, Value: v} }

// m builds an object member.
func m(k string, v objects.Value) objects.Member { return objects.Member{Key: k, Value: v} }
