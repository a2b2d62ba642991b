package index

import (
	"encoding/binary"
	"math"

	"github.com/tinehq/tine/objects"
)

// magic opens every catalog file.
const magic = "TINECTLG"

// Version is the catalog format version this package reads and writes.
const Version = 5

// checksumSize is the trailer checksum's length (SHA-256).
const checksumSize = 32

// typeCodes number the object types in the oid encoding; 0 is "no oid".
var typeCodes = map[objects.Type]byte{
	objects.TypeBlob:        1,
	objects.TypeEvent:       2,
	objects.TypeRun:         3,
	objects.TypeAttestation: 4,
	objects.TypeAnnotation:  5,
}

// codeTypes inverts typeCodes (index 0 unused).
var codeTypes = [...]objects.Type{"", objects.TypeBlob, objects.TypeEvent, objects.TypeRun, objects.TypeAttestation, objects.TypeAnnotation}

// encoder appends the catalog encoding to a buffer.
type encoder struct{ b []byte }

func (e *encoder) uv(n uint64) { e.b = binary.AppendUvarint(e.b, n) }

func (e *encoder) str(s string) {
	e.uv(uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) oid(id objects.OID) {
	if id.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, typeCodes[id.Type])
	e.b = append(e.b, id.Digest[:]...)
}

func (e *encoder) float(f float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f))
}

// encode returns the complete file bytes of d, trailer included. The data
// must satisfy the invariants decode checks (build guarantees them).
func encode(d *data) []byte {
	e := &encoder{b: make([]byte, 0, 4096)}
	e.body(d)
	e.b = binary.LittleEndian.AppendUint64(e.b, d.entries())
	h := objects.SHA256.New()
	h.Write(e.b)
	return h.Sum(e.b)
}

// body appends everything before the trailer.
func (e *encoder) body(d *data) {
	e.b = append(e.b, magic...)
	e.uv(Version)
	e.str(string(d.algo))
	e.uv(uint64(len(d.rules)))
	for _, r := range d.rules {
		e.str(r.Table)
		e.str(r.Kind)
		e.str(r.Path)
	}
	e.refs(d.refs)
	e.uv(uint64(len(d.events)))
	for i := range d.events {
		e.event(&d.events[i])
	}
	e.uv(uint64(len(d.runs)))
	for _, r := range d.runs {
		e.oid(r.Run)
		e.str(r.Status)
		e.flagFloat(r.HasCreatedAt, r.CreatedAt)
		e.uv(uint64(len(r.Events)))
		for _, i := range r.Events {
			e.uv(uint64(i))
		}
		e.uv(uint64(len(r.Tips)))
		for _, i := range r.Tips {
			e.uv(uint64(i))
		}
		e.flag(r.Exact)
		e.fork(&r)
		e.keyed(r.Keyed)
	}
	e.atts(d.atts)
	e.anns(d.anns)
}

// refs appends a ref table: the base's, or a layer's changes (a zero id
// for a deleted ref).
func (e *encoder) refs(refs []RefEntry) {
	e.uv(uint64(len(refs)))
	for _, r := range refs {
		e.str(r.Name)
		e.oid(r.ID)
	}
}

// atts appends an attestation table.
func (e *encoder) atts(atts []Attestation) {
	e.uv(uint64(len(atts)))
	for i := range atts {
		a := &atts[i]
		e.oid(a.ID)
		e.oid(a.Target)
		e.str(a.Signer)
		e.str(a.Kind)
		e.uv(uint64(len(a.Fields)))
		for _, f := range a.Fields {
			e.str(f.Name)
			e.str(f.Value)
		}
		e.uv(uint64(len(a.Scores)))
		for _, s := range a.Scores {
			e.str(s.Name)
			e.float(s.Value)
		}
		e.flag(a.Signed)
		e.str(a.SignedAt)
	}
}

// anns appends an annotation table.
func (e *encoder) anns(anns []Annotation) {
	e.uv(uint64(len(anns)))
	for _, a := range anns {
		e.oid(a.ID)
		e.oid(a.Target)
	}
}

// keyed appends a run's evidence rows.
func (e *encoder) keyed(rows []KeyedEvent) {
	e.uv(uint64(len(rows)))
	for _, k := range rows {
		e.oid(k.Event)
		e.str(k.Table)
		e.str(k.Key)
	}
}

// flag appends a boolean as one byte.
func (e *encoder) flag(b bool) {
	if b {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// flagFloat appends a presence flag and, when set, the float.
func (e *encoder) flagFloat(has bool, f float64) {
	e.flag(has)
	if has {
		e.float(f)
	}
}

// fork appends a run's forked_from: a flag for a fork, then for one a
// flag for held whole, then for that the run and event (zero allowed) and
// the reason.
func (e *encoder) fork(r *RunEntry) {
	e.flag(r.Fork != nil || !r.ForkExact)
	if r.Fork == nil && r.ForkExact {
		return
	}
	e.flag(r.ForkExact)
	if r.ForkExact {
		e.oid(r.Fork.Run)
		e.oid(r.Fork.Event)
		e.str(r.Fork.Reason)
	}
}

// event appends one event summary, its parents as table positions.
func (e *encoder) event(s *EventSummary) {
	e.eventFields(s)
	if s.Missing {
		return
	}
	e.uv(uint64(len(s.parents)))
	for _, n := range s.parents {
		e.uv(uint64(n))
	}
}

// eventFields appends an event summary up to its parents (a layer names
// them by oid, the base file by position).
func (e *encoder) eventFields(s *EventSummary) {
	e.oid(s.ID)
	e.flag(s.Missing)
	if s.Missing {
		return
	}
	e.str(s.Kind)
	e.str(s.Label)
	e.flagFloat(s.HasTime, s.Time)
	e.float(s.Cost)
	e.float(s.Duration)
	e.float(s.Tokens)
	e.flag(s.HasExit)
	if s.HasExit {
		e.b = binary.AppendVarint(e.b, s.ExitCode)
	}
	e.flagFloat(s.HasScore, s.Score)
	e.uv(uint64(len(s.Params)))
	for _, p := range s.Params {
		e.str(p.Name)
		e.str(p.Value)
	}
	e.str(s.Argv)
	e.str(s.Model)
	e.str(s.Tool)
	e.str(s.Error)
	e.uv(uint64(len(s.Words)))
	for _, w := range s.Words {
		e.str(w)
	}
	e.flag(s.Exact)
}
