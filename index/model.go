package index

import (
	"errors"

	"github.com/tinehq/tine/objects"
)

// Errors of the index package; they are wrapped with the file or object
// concerned, so test with errors.Is.
var (
	// ErrCorrupt reports a catalog file that does not decode: truncated,
	// checksum mismatch, bad magic, out-of-bounds counts or broken order.
	// Loading treats it as "rebuild", never as a fact about the repository.
	ErrCorrupt = errors.New("catalog is corrupt")
	// ErrVersion reports a catalog written by another format version.
	ErrVersion = errors.New("catalog format version is not supported")
	// ErrMismatch reports a sound catalog built for another hash profile or
	// another set of evidence rules.
	ErrMismatch = errors.New("catalog was built for another configuration")
	// ErrUnsafePath reports a catalog path that is a symlink or not a
	// regular file or directory (SPEC §2.1 path confinement).
	ErrUnsafePath = errors.New("catalog path is not a plain file or directory")
)

// Limits enforced on encode and decode.
const (
	// MaxStringBytes bounds every string in the catalog. Longer values
	// (a huge signer, a huge evidence key) are simply not indexed.
	MaxStringBytes = 4096
	// MaxFileBytes bounds the catalog file; a larger file is corrupt.
	MaxFileBytes = 1 << 30
	// MaxClaimFields bounds the string fields kept per attestation claim.
	MaxClaimFields = 16
	// MaxScores bounds the scores kept per evaluation.
	MaxScores = 256
)

// Claim kinds the catalog knows by name (SPEC §3.5 for evaluations,
// ARCHITECTURE §4 for gates).
const (
	KindEvaluation = "evaluation"
	KindGate       = "gate"
)

// RefEntry is one ref of the snapshot a catalog was built from.
type RefEntry struct {
	Name string      `json:"name"`
	ID   objects.OID `json:"-"`
}

// KeyedEvent is one evidence-table row: event Event carries Key in Table.
type KeyedEvent struct {
	Event objects.OID
	Table string
	Key   string
}

// RunEntry is one indexed run (a run-typed ref target): its status, its
// events and tips (positions in the catalog's event table, in the run's
// order) and the evidence rows of its events, sorted by table, key, then
// event.
type RunEntry struct {
	Run          objects.OID
	Status       string
	CreatedAt    float64
	HasCreatedAt bool
	Events       []int32
	Tips         []int32
	Keyed        []KeyedEvent
	// Exact reports that the run object was read and Status, Events and
	// Tips are its status, events and tips whole (runExact); `tine log`
	// reads the run itself when it is false.
	Exact bool
	// Fork is the run's forked_from as the porcelain reads it, nil for a
	// run that is no fork. ForkExact reports that Fork is held whole: a
	// forked_from naming an oid of another hash, or with a reason over
	// MaxStringBytes, is not (Fork nil, ForkExact false), and a reader
	// that shows it reads the run.
	Fork      *RunFork
	ForkExact bool

	// tipIDs holds the tips while a build reads.
	tipIDs []objects.OID
}

// RunFork is a run's forked_from: the source run and fork event (zero
// where the member is absent or not an oid, as the porcelain reads it)
// and the reason.
type RunFork struct {
	Run    objects.OID
	Event  objects.OID
	Reason string
}

// Field is one top-level string member of an attestation claim.
type Field struct {
	Name  string
	Value string
}

// Score is one evaluation score.
type Score struct {
	Name  string
	Value float64
}

// Attestation is what the catalog keeps of one attestation object.
type Attestation struct {
	// ID is the attestation's oid.
	ID objects.OID
	// Target is its target run, or the zero OID when target_id is unusable.
	Target objects.OID
	// Signer is the payload's signer when it is a string, else "".
	Signer string
	// Kind is claim.kind when it is a string, else "".
	Kind string
	// Fields are the claim's other top-level string members, sorted by
	// name (for a gate: contract, phase, decision).
	Fields []Field
	// Scores are an evaluation's finite numeric scores, sorted by name.
	Scores []Score
	// Signed reports a signature block; SignedAt is its signed_at label
	// (RFC 3339 as tine writes it) when it carries one, else "".
	Signed   bool
	SignedAt string
}

// Field returns the claim field name and whether the catalog holds it.
func (a *Attestation) Field(name string) (string, bool) {
	for _, f := range a.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// Annotation is what the catalog keeps of one annotation object.
type Annotation struct {
	ID     objects.OID
	Target objects.OID // zero when the annotation has no usable target_id
}

// EvidenceRule says which events feed an evidence table: events whose
// payload "kind" equals Kind (any kind when empty) and whose payload holds a
// non-empty string at the dot-separated Path are rows of Table under that
// string.
type EvidenceRule struct {
	Table string `json:"table"`
	Kind  string `json:"kind,omitempty"`
	Path  string `json:"path"`
}

// TableGateInput is the evidence table from a gate input digest to the
// evidence events recorded for it (ARCHITECTURE §4: the gate cache).
const TableGateInput = "gate-input"

// DefaultRules are the evidence rules every tine command uses. Changing
// them changes the catalog's header, so the next load rebuilds it.
var DefaultRules = []EvidenceRule{
	{Table: TableGateInput, Path: "input_digest"},
}

// data is the decoded content of a catalog file.
type data struct {
	algo   objects.Algo
	rules  []EvidenceRule
	refs   []RefEntry
	events []EventSummary
	runs   []RunEntry
	atts   []Attestation
	anns   []Annotation
}

// entries is the entry count recorded in the trailer.
func (d *data) entries() uint64 {
	return uint64(len(d.refs) + len(d.events) + len(d.runs) + len(d.atts) + len(d.anns))
}
