package loop

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// MaxPayloadDepth is how deeply containers may nest in a recorded payload;
// a container nested deeper is replaced by MarkerDepth (README "What gets
// recorded": nesting deeper than 64).
const MaxPayloadDepth = 64

// maxPointerHops bounds pointer chains that add no nesting, so a long linked
// list of pointers cannot exhaust the stack.
const maxPointerHops = 1024

// maxSafeInt is the largest integer v3 canonical JSON can carry (2^53-1).
const maxSafeInt = 1<<53 - 1

// The text that replaces what canonical JSON cannot represent.
const (
	MarkerCycle = "<tine: circular reference>"
	MarkerDepth = "<tine: max depth exceeded>"
)

// SanitizeCounts counts the substitutions Sanitize made, by kind.
type SanitizeCounts struct {
	// NonFinite: NaN or ±Inf became "NaN", "Infinity" or "-Infinity".
	NonFinite int
	// Cycles: a container reached again inside itself became MarkerCycle.
	Cycles int
	// Depth: a container nested past MaxPayloadDepth became MarkerDepth.
	Depth int
	// Keys: a non-string map key became its text form, or a colliding or
	// repeated key got a "#2", "#3"... suffix.
	Keys int
	// Range: an integer beyond ±(2^53-1) became its decimal string.
	Range int
	// Text: a string that was not valid UTF-8 had bad bytes replaced by
	// U+FFFD.
	Text int
	// Repr: a value with no JSON form (func, chan, complex...) became a
	// description of its type.
	Repr int
}

// Total is the number of substitutions of every kind.
func (c SanitizeCounts) Total() int {
	return c.NonFinite + c.Cycles + c.Depth + c.Keys + c.Range + c.Text + c.Repr
}

// String lists the non-zero counts, e.g. "2 non-finite, 1 cycle".
func (c SanitizeCounts) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{c.NonFinite, "non-finite"}, {c.Cycles, "cycle"}, {c.Depth, "too deep"}, {c.Keys, "key"},
		{c.Range, "integer range"}, {c.Text, "invalid text"}, {c.Repr, "repr"}} {
		if p.n > 0 {
			parts = append(parts, strconv.Itoa(p.n)+" "+p.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func (c *SanitizeCounts) add(o SanitizeCounts) {
	c.NonFinite += o.NonFinite
	c.Cycles += o.Cycles
	c.Depth += o.Depth
	c.Keys += o.Keys
	c.Range += o.Range
	c.Text += o.Text
	c.Repr += o.Repr
}

// Sanitize turns any Go value (objects.Value included) into a Value that v3
// canonical JSON can always encode, counting each substitution instead of
// failing (README "Recording never raises into your loop"). Maps become
// objects with keys in their text form, structs objects of their exported
// fields (honouring a json tag's name or "-"), slices and arrays arrays,
// pointers and interfaces their target, time.Time its RFC 3339 text.
func Sanitize(v any) (objects.Value, SanitizeCounts) {
	s := sanitizer{path: map[visit]bool{}}
	out := s.any(v, 0, 0)
	return out, s.n
}

// visit identifies a container on the current path, for cycle detection.
type visit struct {
	ptr  uintptr
	kind reflect.Kind
	n    int
}

type sanitizer struct {
	n    SanitizeCounts
	path map[visit]bool
}

var valueType = reflect.TypeFor[objects.Value]()

// enter marks a container as on the path; false means it already was.
func (s *sanitizer) enter(k visit) bool {
	if s.path[k] {
		s.n.Cycles++
		return false
	}
	s.path[k] = true
	return true
}

func (s *sanitizer) any(v any, depth, hops int) objects.Value {
	switch x := v.(type) {
	case nil:
		return objects.Null()
	case objects.Value:
		return s.value(x, depth)
	case bool:
		return objects.Bool(x)
	case string:
		return s.str(x)
	case float64:
		return s.float(x)
	case int:
		return s.int(int64(x))
	case int64:
		return s.int(x)
	case json.Number:
		return s.number(x)
	case time.Time:
		return objects.String(x.UTC().Format(time.RFC3339Nano))
	case []byte:
		return s.str(string(x))
	}
	return s.reflect(reflect.ValueOf(v), depth, hops)
}

func (s *sanitizer) reflect(rv reflect.Value, depth, hops int) objects.Value {
	switch rv.Kind() {
	case reflect.Invalid:
		return objects.Null()
	case reflect.Bool:
		return objects.Bool(rv.Bool())
	case reflect.String:
		return s.str(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return s.int(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > maxSafeInt {
			s.n.Range++
			return objects.String(strconv.FormatUint(u, 10))
		}
		return objects.Int(int64(u))
	case reflect.Float32, reflect.Float64:
		return s.float(rv.Float())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return objects.Null()
		}
		if hops >= maxPointerHops {
			s.n.Depth++
			return objects.String(MarkerDepth)
		}
		if rv.Kind() == reflect.Pointer {
			k := visit{ptr: rv.Pointer(), kind: reflect.Pointer}
			if !s.enter(k) {
				return objects.String(MarkerCycle)
			}
			defer delete(s.path, k)
		}
		elem := rv.Elem()
		if elem.Type() == valueType {
			return s.value(elem.Interface().(objects.Value), depth)
		}
		if elem.CanInterface() {
			return s.any(elem.Interface(), depth, hops+1)
		}
		return s.reflect(elem, depth, hops+1)
	case reflect.Map:
		return s.mapValue(rv, depth, hops)
	case reflect.Slice, reflect.Array:
		return s.list(rv, depth, hops)
	case reflect.Struct:
		return s.structValue(rv, depth, hops)
	}
	s.n.Repr++
	return objects.String("<" + rv.Type().String() + ">")
}

func (s *sanitizer) str(x string) objects.Value {
	if utf8.ValidString(x) {
		return objects.String(x)
	}
	s.n.Text++
	return objects.String(strings.ToValidUTF8(x, "\uFFFD"))
}

func (s *sanitizer) float(f float64) objects.Value {
	switch {
	case math.IsNaN(f):
		s.n.NonFinite++
		return objects.String("NaN")
	case math.IsInf(f, 1):
		s.n.NonFinite++
		return objects.String("Infinity")
	case math.IsInf(f, -1):
		s.n.NonFinite++
		return objects.String("-Infinity")
	}
	return objects.Float(f)
}

func (s *sanitizer) int(i int64) objects.Value {
	if i > maxSafeInt || i < -maxSafeInt {
		s.n.Range++
		return objects.String(strconv.FormatInt(i, 10))
	}
	return objects.Int(i)
}

func (s *sanitizer) bigInt(b *big.Int) objects.Value {
	if b.IsInt64() {
		return s.int(b.Int64())
	}
	s.n.Range++
	return objects.String(b.String())
}

func (s *sanitizer) number(x json.Number) objects.Value {
	if i, err := x.Int64(); err == nil {
		return s.int(i)
	}
	if f, err := x.Float64(); err == nil {
		return s.float(f)
	}
	if b, ok := new(big.Int).SetString(string(x), 10); ok {
		return s.bigInt(b)
	}
	return s.str(string(x))
}

// tooDeep reports (and counts) a container that would sit past the limit.
func (s *sanitizer) tooDeep(depth int) bool {
	if depth >= MaxPayloadDepth {
		s.n.Depth++
		return true
	}
	return false
}

// keyText is the text form of a non-string map key.
func keyText(k reflect.Value) string {
	if k.Kind() == reflect.Interface && !k.IsNil() {
		k = k.Elem()
	}
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.CanInterface() {
		return fmt.Sprint(k.Interface())
	}
	return k.String()
}

// unique returns key, or key with the first free "#n" suffix when taken.
func (s *sanitizer) unique(seen map[string]bool, key string) string {
	if !seen[key] {
		seen[key] = true
		return key
	}
	s.n.Keys++
	for i := 2; ; i++ {
		k := key + "#" + strconv.Itoa(i)
		if !seen[k] {
			seen[k] = true
			return k
		}
	}
}
