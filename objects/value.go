package objects

import "math/big"

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of JSON value. Integers and floats are kept apart because the
// literal decides identity (SPEC §0.2: a literal is an integer iff it has no
// '.', 'e' or 'E').
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	KindArray
	KindObject
)

// String returns the kind's JSON name.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	}
	return "invalid"
}

// Value is one JSON value as the strict reader produced it.
//
// Strings are held as WTF-8: UTF-8 that may also carry an unpaired surrogate
// encoded as the three bytes ED A0..BF xx. Only the v2 canonicalizer may
// emit such a string; every other consumer refuses it. Object members keep
// their input order; canonicalizers sort.
type Value struct {
	Kind Kind
	// Bool is the value of a KindBool.
	Bool bool
	// Int is the value of a KindInt that fits in an int64; Big is nil then.
	Int int64
	// Big is the value of a KindInt that does not fit in an int64.
	Big *big.Int
	// Float is the value of a KindFloat.
	Float float64
	// Str is the value of a KindString, as WTF-8.
	Str string
	// Array holds the elements of a KindArray, in order.
	Array []Value
	// Object holds the members of a KindObject, in input order, keys unique.
	Object []Member
}

// Member is one key/value pair of a JSON object. Key is WTF-8.
type Member struct {
	Key   string
	Value Value
}

// Null returns the JSON null.
func Null() Value { return Value{Kind: KindNull} }

// Bool returns a JSON boolean.
func Bool(b bool) Value { return Value{Kind: KindBool, Bool: b} }

// Int returns a JSON integer.
func Int(i int64) Value { return Value{Kind: KindInt, Int: i} }

// BigInt returns a JSON integer of any magnitude, normalised so that values
// that fit an int64 use the Int field.
func BigInt(b *big.Int) Value {
	if b.IsInt64() {
		return Value{Kind: KindInt, Int: b.Int64()}
	}
	return Value{Kind: KindInt, Big: new(big.Int).Set(b)}
}

// Float returns a JSON float.
func Float(f float64) Value { return Value{Kind: KindFloat, Float: f} }

// String returns a JSON string. s must be valid UTF-8 (or WTF-8).
func String(s string) Value { return Value{Kind: KindString, Str: s} }

// Array returns a JSON array of the given elements.
func Array(elems ...Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{Kind: KindArray, Array: elems}
}

// ObjectValue returns a JSON object of the given members. The caller keeps
// keys unique. (Object is the stored-object type.)
func ObjectValue(members ...Member) Value {
	if members == nil {
		members = []Member{}
	}
	return Value{Kind: KindObject, Object: members}
}

// Get returns the value of the member named key and whether it exists.
// It returns false for a Value that is not an object.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind != KindObject {
		return Value{}, false
	}
	for i := range v.Object {
		if v.Object[i].Key == key {
			return v.Object[i].Value, true
		}
	}
	return Value{}, false
}

// IsNumber reports whether v is an integer or a float.
func (v Value) IsNumber() bool { return v.Kind == KindInt || v.Kind == KindFloat }

// Truthy reports Python truthiness, which several SPEC rules use ("if
// truthy, a blob oid"): null, false, 0, 0.0, "", [] and {} are false.
func (v Value) Truthy() bool {
	switch v.Kind {
	case KindNull:
		return false
	case KindBool:
		return v.Bool
	case KindInt:
		return v.Big != nil || v.Int != 0
	case KindFloat:
		return v.Float != 0
	case KindString:
		return v.Str != ""
	case KindArray:
		return len(v.Array) > 0
	case KindObject:
		return len(v.Object) > 0
	}
	return false
}

// Equal reports whether a and b are the same JSON value: object members
// compare without regard to order, an integer never equals a float (the
// literal decides identity, SPEC §0.2), and NaN equals NaN so that a value
// always equals itself.
func Equal(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindNull:
		return true
	case KindBool:
		return a.Bool == b.Bool
	case KindInt:
		if a.Big != nil || b.Big != nil {
			// BigInt normalises: a value that fits an int64 never has Big.
			return a.Big != nil && b.Big != nil && a.Big.Cmp(b.Big) == 0
		}
		return a.Int == b.Int
	case KindFloat:
		return a.Float == b.Float || (a.Float != a.Float && b.Float != b.Float)
	case KindString:
		return a.Str == b.Str
	case KindArray:
		if len(a.Array) != len(b.Array) {
			return false
		}
		for i := range a.Array {
			if !Equal(a.Array[i], b.Array[i]) {
				return false
			}
		}
		return true
	case KindObject:
		if len(a.Object) != len(b.Object) {
			return false
		}
		for _, m := range a.Object {
			o, ok := b.Get(m.Key)
			if !ok || !Equal(m.Value, o) {
				return false
			}
		}
		return true
	}
	return false
}
