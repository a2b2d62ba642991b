package loop

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// MaxStoredState is the largest canonical state stored in full; a larger one
// is stored as a truncation marker (README "State snapshots are bounded").
const MaxStoredState = 256 << 10

// MaxStateDepth is the deepest state the engine copies between branches. A
// deeper state is refused (the README's LoopStateError), because branches
// must never share mutable state.
const MaxStateDepth = objects.MaxJSONDepth

// maxMarkerKeys bounds the top-level key names a truncation marker lists,
// and maxMarkerKey each name's length, so the marker itself stays small.
const (
	maxMarkerKeys = 256
	maxMarkerKey  = 256
)

// Snapshot is a state as recorded: the sanitized value, the bytes to store
// and a digest over the whole canonical state.
type Snapshot struct {
	// Value is the sanitized state.
	Value objects.Value
	// Stored is Value's v3 canonical JSON, or a truncation marker when that
	// is longer than MaxStoredState.
	Stored []byte
	// Digest is the blob oid of the full canonical state, so it equals the
	// stored blob's oid whenever Truncated is false.
	Digest objects.OID
	// Size is the full canonical state's length in bytes.
	Size int
	// Truncated is true when Stored is a marker rather than the state.
	Truncated bool
}

// SnapshotState sanitizes v and snapshots it (storedState); recording
// never fails on the caller's data, so substitutions are returned as counts.
func SnapshotState(a objects.Algo, v objects.Value) (Snapshot, SanitizeCounts) {
	clean, n := Sanitize(v)
	stored, digest, truncated, size, err := storedState(a, clean)
	if err != nil {
		// Sanitize guarantees an encodable value; keep the promise even
		// if that ever broke, by recording the failure as text.
		n.Repr++
		clean = objects.String("<tine: unencodable state: " + err.Error() + ">")
		stored, digest, truncated, size, _ = storedState(a, clean)
	}
	return Snapshot{Value: clean, Stored: stored, Digest: digest, Size: size, Truncated: truncated}, n
}

// storedState returns the bytes to store for a sanitized state v, the digest
// over its whole canonical form (a blob oid under hash a), whether the
// stored bytes are a truncation marker, and the full size. It fails when v
// cannot be encoded or a is not a hash profile.
func storedState(a objects.Algo, v objects.Value) ([]byte, objects.OID, bool, int, error) {
	if !a.Valid() {
		return nil, objects.OID{}, false, 0, fmt.Errorf("state digest: unknown hash %q", a)
	}
	full, err := objects.CanonV3(v)
	if err != nil {
		return nil, objects.OID{}, false, 0, fmt.Errorf("state digest: %w", err)
	}
	digest := a.Derive(objects.TypeBlob, 1, full)
	if len(full) <= MaxStoredState {
		return full, digest, false, len(full), nil
	}
	marker, err := objects.CanonV3(truncationMarker(v, digest, len(full)))
	if err != nil {
		return nil, objects.OID{}, false, 0, fmt.Errorf("state truncation marker: %w", err)
	}
	return marker, digest, true, len(full), nil
}

// truncationMarker stands in for an oversized state: its size, digest and
// (bounded) top-level key names.
func truncationMarker(v objects.Value, digest objects.OID, size int) objects.Value {
	keys := []objects.Value{}
	for i, m := range v.Object {
		if i == maxMarkerKeys {
			break
		}
		k := m.Key
		if len(k) > maxMarkerKey {
			k = strings.ToValidUTF8(k[:maxMarkerKey], "")
		}
		keys = append(keys, objects.String(k))
	}
	return objects.ObjectValue(
		objects.Member{Key: "tine_truncated", Value: objects.Bool(true)},
		objects.Member{Key: "kind", Value: objects.String(v.Kind.String())},
		objects.Member{Key: "size", Value: objects.Int(int64(size))},
		objects.Member{Key: "digest", Value: objects.String(digest.String())},
		objects.Member{Key: "keys", Value: objects.Array(keys...)},
	)
}

// cloneValue deep-copies v so branches never share slices, refusing states
// nested deeper than MaxStateDepth (which also ends aliasing cycles).
func cloneValue(v objects.Value) (objects.Value, error) {
	return cloneAt(v, 0)
}

func cloneAt(v objects.Value, depth int) (objects.Value, error) {
	switch v.Kind {
	case objects.KindArray, objects.KindObject:
		if depth >= MaxStateDepth {
			return objects.Value{}, fmt.Errorf("%w: more than %d levels", ErrStateTooDeep, MaxStateDepth)
		}
	default:
		return v, nil // scalars share nothing mutable (big.Int is never mutated)
	}
	out := v
	if v.Kind == objects.KindArray {
		out.Array = make([]objects.Value, len(v.Array))
		for i := range v.Array {
			c, err := cloneAt(v.Array[i], depth+1)
			if err != nil {
				return objects.Value{}, err
			}
			out.Array[i] = c
		}
		return out, nil
	}
	out.Object = make([]objects.Member, len(v.Object))
	for i := range v.Object {
		c, err := cloneAt(v.Object[i].Value, depth+1)
		if err != nil {
			return objects.Value{}, err
		}
		out.Object[i] = objects.Member{Key: v.Object[i].Key, Value: c}
	}
	return out, nil
}

// Delta compares a proposed state with the evaluated one by top-level key
// (the README's candidates[].delta). When either state is not a JSON object
// only Replaced says whether they differ.
type Delta struct {
	Added    []string
	Removed  []string
	Changed  []string
	Replaced bool
}

// Diff returns the Delta from state a to state b; key lists are sorted.
func Diff(a, b objects.Value) Delta {
	var d Delta
	if a.Kind != objects.KindObject || b.Kind != objects.KindObject {
		d.Replaced = !objects.Equal(a, b)
		return d
	}
	for _, m := range b.Object {
		old, ok := a.Get(m.Key)
		switch {
		case !ok:
			d.Added = append(d.Added, m.Key)
		case !objects.Equal(old, m.Value):
			d.Changed = append(d.Changed, m.Key)
		}
	}
	for _, m := range a.Object {
		if _, ok := b.Get(m.Key); !ok {
			d.Removed = append(d.Removed, m.Key)
		}
	}
	slices.Sort(d.Added)
	slices.Sort(d.Removed)
	slices.Sort(d.Changed)
	return d
}

// isFinite reports whether f is neither NaN nor infinite.
func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
