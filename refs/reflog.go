package refs

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// Bounds of reflog rows.
const (
	// MaxActorChars bounds a row's actor in characters (code points), not
	// bytes (SPEC §1.6, §2.6).
	MaxActorChars = 4096
	// MaxReflogRowBytes bounds one stored row on read. The largest legal row
	// (a 4096-character actor of six-byte escapes, two oids, a 512-byte ref)
	// is under 26 KiB.
	MaxReflogRowBytes = 64 << 10
)

// ReflogEntry is one reflog row (SPEC §2.6): who moved which ref from what
// to what, and when.
type ReflogEntry struct {
	// Actor names the writer; at most MaxActorChars characters.
	Actor string
	// New is the value the ref was set to. Never zero.
	New objects.OID
	// Old is the value it had, zero (JSON null) when the ref was created.
	Old objects.OID
	// Ref is the normalized ref name.
	Ref string
	// TimeNS is the Unix time of the update in nanoseconds, stored as a
	// decimal string because canonical JSON refuses integers past 2^53-1.
	TimeNS int64
}

// Time returns the entry's time.
func (e ReflogEntry) Time() time.Time { return time.Unix(0, e.TimeNS) }

// Value returns the row as a JSON value with the five keys of SPEC §2.6.
func (e ReflogEntry) Value() objects.Value {
	old := objects.Null()
	if !e.Old.IsZero() {
		old = objects.String(e.Old.String())
	}
	return objects.Value{Kind: objects.KindObject, Object: []objects.Member{
		{Key: "actor", Value: objects.String(e.Actor)},
		{Key: "new", Value: objects.String(e.New.String())},
		{Key: "old", Value: old},
		{Key: "ref", Value: objects.String(e.Ref)},
		{Key: "time_ns", Value: objects.String(strconv.FormatInt(e.TimeNS, 10))},
	}}
}

// validate checks the rules of SPEC §2.6 a writer must keep.
func (e ReflogEntry) validate() error {
	if !utf8.ValidString(e.Actor) {
		return objects.Errorf(objects.ReasonCanonUnencodableText, "reflog actor is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(e.Actor); n > MaxActorChars {
		return objects.Errorf(objects.ReasonReflogActorTooLong, "reflog actor of %d characters, limit %d", n, MaxActorChars)
	}
	if e.New.IsZero() {
		return objects.Errorf(objects.ReasonOidMalformed, "reflog row for %s has no new oid", e.Ref)
	}
	norm, err := NormalizeName(e.Ref)
	if err != nil {
		return err
	}
	if norm != e.Ref {
		return fmt.Errorf("reflog row names %q, not its normalized form %q: %w", e.Ref, norm, ErrMalformedReflog)
	}
	if e.TimeNS < 0 {
		return objects.Errorf(objects.ReasonReflogTimeNotString, "reflog time_ns %d is negative", e.TimeNS)
	}
	return nil
}

// EncodeReflogRow returns the stored form of a row: v3 canonical JSON of
// {"actor","new","old","ref","time_ns"} and an LF (SPEC §2.6).
func EncodeReflogRow(e ReflogEntry) ([]byte, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	b, err := objects.CanonV3(e.Value())
	if err != nil {
		return nil, fmt.Errorf("reflog row for %s: %w", e.Ref, err)
	}
	return append(b, '\n'), nil
}

// ReflogEntryFromValue converts a JSON value holding a row into an entry,
// applying the reader's rules: exactly the five keys; actor a string of at
// most MaxActorChars characters (reflog.actor-too-long); new an oid and old
// an oid or null (oid.malformed); ref a normalized name (ref.name-*);
// time_ns a decimal string (reflog.time-not-string). It is the reflog.row
// conformance op's input path.
func ReflogEntryFromValue(v objects.Value) (ReflogEntry, error) {
	var e ReflogEntry
	if v.Kind != objects.KindObject || len(v.Object) != 5 {
		return e, fmt.Errorf("%w: want an object with actor, new, old, ref and time_ns", ErrMalformedReflog)
	}
	field := func(k string) (objects.Value, error) {
		f, ok := v.Get(k)
		if !ok {
			return f, fmt.Errorf("%w: no %q", ErrMalformedReflog, k)
		}
		return f, nil
	}
	actor, err := field("actor")
	if err != nil {
		return e, err
	}
	if actor.Kind != objects.KindString {
		return e, fmt.Errorf("%w: actor is a %s, not a string", ErrMalformedReflog, actor.Kind)
	}
	e.Actor = actor.Str
	nv, err := field("new")
	if err != nil {
		return e, err
	}
	if e.New, err = oidField("new", nv, false); err != nil {
		return e, err
	}
	ov, err := field("old")
	if err != nil {
		return e, err
	}
	if e.Old, err = oidField("old", ov, true); err != nil {
		return e, err
	}
	rv, err := field("ref")
	if err != nil {
		return e, err
	}
	if rv.Kind != objects.KindString {
		return e, fmt.Errorf("%w: ref is a %s, not a string", ErrMalformedReflog, rv.Kind)
	}
	e.Ref = rv.Str
	tv, err := field("time_ns")
	if err != nil {
		return e, err
	}
	if e.TimeNS, err = parseTimeNS(tv); err != nil {
		return e, err
	}
	return e, e.validate()
}

// oidField parses the new/old member of a row.
func oidField(key string, v objects.Value, nullable bool) (objects.OID, error) {
	if nullable && v.Kind == objects.KindNull {
		return objects.OID{}, nil
	}
	if v.Kind != objects.KindString {
		return objects.OID{}, objects.Errorf(objects.ReasonOidMalformed, "reflog %s is a %s, not an oid", key, v.Kind)
	}
	return objects.ParseOID(v.Str)
}

// parseTimeNS reads time_ns: SPEC §2.6 stores it as a decimal string; a
// number is reflog.time-not-string, and so is a string that is not the
// canonical decimal spelling of a non-negative int64.
func parseTimeNS(v objects.Value) (int64, error) {
	if v.Kind != objects.KindString {
		return 0, objects.Errorf(objects.ReasonReflogTimeNotString, "reflog time_ns is a %s, not a decimal string", v.Kind)
	}
	s := v.Str
	ok := s != "" && len(s) <= 19 && (s == "0" || s[0] != '0')
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= '0' && s[i] <= '9'
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil {
		return 0, objects.Errorf(objects.ReasonReflogTimeNotString, "reflog time_ns %.40q is not a decimal string", s)
	}
	return n, nil
}

// ParseReflogRow parses one stored row, LF included. It is strict: the row
// must be exactly what EncodeReflogRow writes for the entry it holds, so a
// non-canonical, reformatted or extended row is rejected rather than
// reinterpreted.
func ParseReflogRow(row []byte) (ReflogEntry, error) {
	if len(row) > MaxReflogRowBytes {
		return ReflogEntry{}, fmt.Errorf("%w: %d bytes, limit %d", ErrMalformedReflog, len(row), MaxReflogRowBytes)
	}
	if len(row) == 0 || row[len(row)-1] != '\n' {
		return ReflogEntry{}, fmt.Errorf("%w: row is not LF-terminated", ErrTornReflog)
	}
	body := row[:len(row)-1]
	if bytes.IndexByte(body, '\n') >= 0 {
		return ReflogEntry{}, fmt.Errorf("%w: more than one line", ErrMalformedReflog)
	}
	v, err := objects.ParseJSON(body, objects.ParseOptions{MaxDepth: 2})
	if err != nil {
		return ReflogEntry{}, fmt.Errorf("%w: %w", ErrMalformedReflog, err)
	}
	e, err := ReflogEntryFromValue(v)
	if err != nil {
		return ReflogEntry{}, err
	}
	canon, err := EncodeReflogRow(e)
	if err != nil {
		return ReflogEntry{}, err
	}
	if !bytes.Equal(canon, row) {
		return ReflogEntry{}, fmt.Errorf("%w: row is not in canonical form", ErrMalformedReflog)
	}
	return e, nil
}
