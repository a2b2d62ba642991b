package objects

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// EncodeArtifact returns the bytes of a .tine document as OpenTine writes
// one (SPEC §3.1): exactly CPython's json.dumps(doc, indent=2,
// sort_keys=True, allow_nan=False) — two-space indentation, one member
// or element per line ending in ",", "key": value with ": ", keys sorted by
// code point, "{}" and "[]" for empty containers, ASCII only (ensure_ascii), integers in full, floats as Python
// repr — with LF line ends and no newline after the closing brace. Scalars
// are spelled as the v2 canonical encoder spells them, which is the same
// json.dumps without the indentation.
//
// It fails as CanonV2 does (canon.non-finite, canon.unencodable-text,
// canon.depth-exceeded), and with ErrDuplicateMember for an object that
// holds a key twice (a parsed document never does).
func EncodeArtifact(doc Value) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeIndented(&buf, &doc, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeIndented writes v, which sits inside depth containers, at the
// indentation of depth.
func encodeIndented(buf *bytes.Buffer, v *Value, depth int) error {
	empty := (v.Kind == KindObject && len(v.Object) == 0) || (v.Kind == KindArray && len(v.Array) == 0)
	if (v.Kind != KindObject && v.Kind != KindArray) || empty {
		b, err := AppendCanonV2(buf.AvailableBuffer(), *v)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	if depth >= MaxCanonV2Depth {
		return Errorf(ReasonCanonDepthExceeded, "more than %d nested containers", MaxCanonV2Depth)
	}
	pad := "\n" + strings.Repeat("  ", depth+1)
	if v.Kind == KindArray {
		buf.WriteByte('[')
		for i := range v.Array {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(pad)
			if err := encodeIndented(buf, &v.Array[i], depth+1); err != nil {
				return err
			}
		}
		buf.WriteString(pad[:len(pad)-2] + "]")
		return nil
	}
	order := make([]int, len(v.Object))
	for i := range order {
		order[i] = i
	}
	// Byte order of (WTF-8) keys is code-point order, as in CanonV2.
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(v.Object[a].Key, v.Object[b].Key) })
	buf.WriteByte('{')
	for i, j := range order {
		m := &v.Object[j]
		if i > 0 {
			if v.Object[order[i-1]].Key == m.Key {
				return fmt.Errorf(".tine encoding: key %q: %w", abbreviate(m.Key), ErrDuplicateMember)
			}
			buf.WriteByte(',')
		}
		buf.WriteString(pad)
		k, err := AppendCanonV2(buf.AvailableBuffer(), String(m.Key))
		if err != nil {
			return err
		}
		buf.Write(k)
		buf.WriteString(": ")
		if err := encodeIndented(buf, &m.Value, depth+1); err != nil {
			return err
		}
	}
	buf.WriteString(pad[:len(pad)-2] + "}")
	return nil
}
