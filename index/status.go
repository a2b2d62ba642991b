package index

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// stateDiff counts how a catalog differs from the repository.
type stateDiff struct {
	refs, atts, anns int
}

func (s stateDiff) fresh() bool { return s.refs == 0 && s.atts == 0 && s.anns == 0 }

// String describes the difference as an update reason.
func (s stateDiff) String() string {
	var parts []string
	if s.refs > 0 {
		parts = append(parts, fmt.Sprintf("%d refs changed", s.refs))
	}
	if s.atts > 0 {
		parts = append(parts, fmt.Sprintf("%d attestations added or removed", s.atts))
	}
	if s.anns > 0 {
		parts = append(parts, fmt.Sprintf("%d annotations added or removed", s.anns))
	}
	return strings.Join(parts, ", ")
}

// compareState compares the catalog's ref snapshot and object sets with
// the repository's: the cheap checks that decide whether it is stale.
func compareState(d *data, st *state) stateDiff {
	var diff stateDiff
	cur := make(map[string]objects.OID, len(st.refs))
	for _, r := range st.refs {
		cur[r.Name] = r.ID
	}
	for _, r := range d.refs {
		id, ok := cur[r.Name]
		if !ok || id != r.ID {
			diff.refs++
		}
		delete(cur, r.Name)
	}
	diff.refs += len(cur)
	atts := make([]objects.OID, len(d.atts))
	for i := range d.atts {
		atts[i] = d.atts[i].ID
	}
	anns := make([]objects.OID, len(d.anns))
	for i := range d.anns {
		anns[i] = d.anns[i].ID
	}
	diff.atts = symmetricDiff(atts, st.atts)
	diff.anns = symmetricDiff(anns, st.anns)
	return diff
}

// symmetricDiff counts the ids in exactly one of two sorted lists.
func symmetricDiff(a, b []objects.OID) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch c := compareOID(a[i], b[j]); {
		case c == 0:
			i++
			j++
		case c < 0:
			n++
			i++
		default:
			n++
			j++
		}
	}
	return n + len(a) - i + len(b) - j
}

// States a Status reports.
const (
	StateFresh    = "fresh"
	StateStale    = "stale"
	StateMissing  = "missing"
	StateCorrupt  = "corrupt"
	StateMismatch = "mismatch"
)

// Status describes the catalog file without changing it.
type Status struct {
	// Path is the catalog file (absolute).
	Path string `json:"path"`
	// State is one of the State* constants.
	State string `json:"state"`
	// Reason says why the state is not fresh.
	Reason string `json:"reason,omitempty"`
	// Bytes is the size of the base file and its layers.
	Bytes int64 `json:"bytes"`
	// Layers counts the layers on the base file; LayerBytes is their size.
	Layers     int   `json:"layers"`
	LayerBytes int64 `json:"layer_bytes"`
	// Counts are the file's table sizes (zero unless it decodes).
	Counts
	// StaleRefs, StaleAttestations and StaleAnnotations count what changed
	// since the catalog was built.
	StaleRefs         int `json:"stale_refs"`
	StaleAttestations int `json:"stale_attestations"`
	StaleAnnotations  int `json:"stale_annotations"`
}

// Status reports whether the catalog (its base file and layers) is fresh,
// stale, missing, corrupt or built for another configuration. It writes
// nothing.
func (ix *Index) Status(ctx context.Context) (*Status, error) {
	s := &Status{Path: ix.Path()}
	cur, err := ix.readStack()
	switch {
	case errors.Is(err, ErrVersion), errors.Is(err, ErrMismatch):
		s.State, s.Reason = StateMismatch, err.Error()
		return s, nil
	case errors.Is(err, ErrUnsafePath) || errors.Is(err, ErrCorrupt):
		s.State, s.Reason = StateCorrupt, err.Error()
		return s, nil
	case err != nil:
		return nil, err
	case cur == nil:
		s.State = StateMissing
		return s, nil
	}
	s.Bytes, s.Layers, s.LayerBytes = cur.baseBytes+cur.layerBytes, len(cur.layers), cur.layerBytes
	s.Counts = cur.d.counts()
	st, err := readState(ctx, ix.src, ix.refs)
	if err != nil {
		return nil, err
	}
	diff := compareState(cur.d, st)
	s.StaleRefs, s.StaleAttestations, s.StaleAnnotations = diff.refs, diff.atts, diff.anns
	s.State = StateFresh
	if !diff.fresh() {
		s.State, s.Reason = StateStale, diff.String()
	}
	return s, nil
}
