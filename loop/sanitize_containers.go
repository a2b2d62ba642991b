package loop

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// mapEntry is one map member on its way to becoming an object member.
type mapEntry struct {
	text     string
	isString bool
	typ      string
	val      reflect.Value
}

func (s *sanitizer) mapValue(rv reflect.Value, depth, hops int) objects.Value {
	if rv.IsNil() {
		return objects.Null()
	}
	if s.tooDeep(depth) {
		return objects.String(MarkerDepth)
	}
	k := visit{ptr: rv.Pointer(), kind: reflect.Map}
	if !s.enter(k) {
		return objects.String(MarkerCycle)
	}
	defer delete(s.path, k)
	entries := make([]mapEntry, 0, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		key := iter.Key()
		e := mapEntry{val: iter.Value(), typ: key.Type().String()}
		if key.Kind() == reflect.String {
			e.text, e.isString = key.String(), true
		} else {
			e.text = keyText(key)
			if key.Kind() == reflect.Interface && !key.IsNil() && key.Elem().Kind() == reflect.String {
				e.isString = true
			} else {
				s.n.Keys++
			}
			if key.Kind() == reflect.Interface && !key.IsNil() {
				e.typ = key.Elem().Type().String()
			}
		}
		entries = append(entries, e)
	}
	// Go map order is random: sort so that collision suffixes are stable,
	// real string keys first so they keep their names.
	slices.SortFunc(entries, func(a, b mapEntry) int {
		if a.isString != b.isString {
			if a.isString {
				return -1
			}
			return 1
		}
		// Keys alike in text and type (two NaN keys, say) stay in map
		// order; only their suffixes can then vary.
		return cmp.Or(strings.Compare(a.text, b.text), strings.Compare(a.typ, b.typ))
	})
	seen := make(map[string]bool, len(entries))
	members := make([]objects.Member, 0, len(entries))
	for _, e := range entries {
		name := s.unique(seen, s.str(e.text).Str)
		members = append(members, objects.Member{Key: name, Value: s.elem(e.val, depth+1, hops)})
	}
	return objects.ObjectValue(members...)
}

// elem sanitizes a reflected element, through its interface when it has one
// so that objects.Value and the fast paths apply.
func (s *sanitizer) elem(v reflect.Value, depth, hops int) objects.Value {
	if v.CanInterface() {
		return s.any(v.Interface(), depth, hops)
	}
	return s.reflect(v, depth, hops)
}

func (s *sanitizer) list(rv reflect.Value, depth, hops int) objects.Value {
	if rv.Kind() == reflect.Slice && rv.IsNil() {
		return objects.Null()
	}
	if s.tooDeep(depth) {
		return objects.String(MarkerDepth)
	}
	if rv.Kind() == reflect.Slice && rv.Len() > 0 {
		k := visit{ptr: rv.Pointer(), kind: reflect.Slice, n: rv.Len()}
		if !s.enter(k) {
			return objects.String(MarkerCycle)
		}
		defer delete(s.path, k)
	}
	out := make([]objects.Value, rv.Len())
	for i := range out {
		out[i] = s.elem(rv.Index(i), depth+1, hops)
	}
	return objects.Array(out...)
}

func (s *sanitizer) structValue(rv reflect.Value, depth, hops int) objects.Value {
	if s.tooDeep(depth) {
		return objects.String(MarkerDepth)
	}
	t := rv.Type()
	seen := map[string]bool{}
	var members []objects.Member
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		name = s.unique(seen, name)
		members = append(members, objects.Member{Key: name, Value: s.elem(rv.Field(i), depth+1, hops)})
	}
	return objects.ObjectValue(members...)
}

// value sanitizes an objects.Value: hand-built ones can hold non-finite
// floats, out-of-range integers, invalid text, repeated keys, aliasing
// cycles and any depth.
func (s *sanitizer) value(v objects.Value, depth int) objects.Value {
	switch v.Kind {
	case objects.KindNull:
		return objects.Null()
	case objects.KindBool:
		return objects.Bool(v.Bool)
	case objects.KindInt:
		if v.Big != nil {
			return s.bigInt(v.Big)
		}
		return s.int(v.Int)
	case objects.KindFloat:
		return s.float(v.Float)
	case objects.KindString:
		return s.str(v.Str)
	case objects.KindArray:
		if s.tooDeep(depth) {
			return objects.String(MarkerDepth)
		}
		if len(v.Array) > 0 {
			k := visit{ptr: reflect.ValueOf(v.Array).Pointer(), kind: reflect.Slice, n: len(v.Array)}
			if !s.enter(k) {
				return objects.String(MarkerCycle)
			}
			defer delete(s.path, k)
		}
		out := make([]objects.Value, len(v.Array))
		for i := range v.Array {
			out[i] = s.value(v.Array[i], depth+1)
		}
		return objects.Array(out...)
	case objects.KindObject:
		if s.tooDeep(depth) {
			return objects.String(MarkerDepth)
		}
		if len(v.Object) > 0 {
			k := visit{ptr: reflect.ValueOf(v.Object).Pointer(), kind: reflect.Struct, n: len(v.Object)}
			if !s.enter(k) {
				return objects.String(MarkerCycle)
			}
			defer delete(s.path, k)
		}
		seen := make(map[string]bool, len(v.Object))
		out := make([]objects.Member, len(v.Object))
		for i := range v.Object {
			out[i] = objects.Member{Key: s.unique(seen, s.str(v.Object[i].Key).Str), Value: s.value(v.Object[i].Value, depth+1)}
		}
		return objects.ObjectValue(out...)
	}
	s.n.Repr++
	return objects.String("<invalid value>")
}

// sanitizeText makes s valid UTF-8, returning how many substitutions (0 or 1).
func sanitizeText(x string) (string, int) {
	var s sanitizer
	return s.str(x).Str, s.n.Text
}
