package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tinehq/tine/objects"
)

// A catalog layer is what one update changed, on top of the base file and
// the layers before it (doc.go has the format): the refs that moved, the
// runs and event summaries that are new, the attestations and annotations
// added or gone. A new run is held as the first Prefix events of a run
// the catalog already held plus its own events, so an append costs its
// new events, not the run's length.

// layerMagic opens every layer file.
const layerMagic = "TINECLYR"

// delta is one decoded layer.
type delta struct {
	// refs are the refs that changed, sorted by name; a zero ID is a ref
	// that was deleted.
	refs []RefEntry
	// events are the summaries the runs below list that the catalog
	// before the layer lacked, sorted by oid, parents by oid (parentIDs).
	events []EventSummary
	// runs are the run-typed ref targets the catalog before the layer
	// lacked, sorted by oid.
	runs []layerRun
	// atts and anns were added to the store; attsGone and annsGone left
	// it (pruned), each sorted by oid.
	atts     []Attestation
	attsGone []objects.OID
	anns     []Annotation
	annsGone []objects.OID
}

// layerRun is a new run: its entry (Events and Tips unset) and its event
// list as the first prefix events of run from (a run of the catalog the
// layer extends; zero with prefix 0 for none) followed by own. When
// inherit is set (an append: the run lists every event of from), the
// entry's evidence rows are only those from lacks, and the run's are
// from's and these together.
type layerRun struct {
	entry   RunEntry
	from    objects.OID
	prefix  int
	inherit bool
	own     []objects.OID
	tips    []objects.OID
}

// entries counts what the layer holds, for its trailer.
func (l *delta) entries() uint64 {
	return uint64(len(l.refs) + len(l.events) + len(l.runs) + len(l.atts) + len(l.attsGone) + len(l.anns) + len(l.annsGone))
}

// encodeLayer returns the file bytes of l for a repository hashing with
// algo.
func encodeLayer(l *delta, algo objects.Algo) []byte {
	e := &encoder{b: make([]byte, 0, 1024)}
	e.b = append(e.b, layerMagic...)
	e.uv(Version)
	e.str(string(algo))
	e.refs(l.refs)
	e.uv(uint64(len(l.events)))
	for i := range l.events {
		s := &l.events[i]
		e.eventFields(s)
		if !s.Missing {
			e.oids(s.parentIDs)
		}
	}
	e.uv(uint64(len(l.runs)))
	for i := range l.runs {
		r := &l.runs[i]
		e.oid(r.entry.Run)
		e.str(r.entry.Status)
		e.flagFloat(r.entry.HasCreatedAt, r.entry.CreatedAt)
		e.flag(r.entry.Exact)
		e.fork(&r.entry)
		e.keyed(r.entry.Keyed)
		e.oid(r.from)
		e.uv(uint64(r.prefix))
		e.flag(r.inherit)
		e.oids(r.own)
		e.oids(r.tips)
	}
	e.atts(l.atts)
	e.oids(l.attsGone)
	e.anns(l.anns)
	e.oids(l.annsGone)
	e.b = binary.LittleEndian.AppendUint64(e.b, l.entries())
	h := objects.SHA256.New()
	h.Write(e.b)
	return h.Sum(e.b)
}

// oids appends a counted oid list.
func (e *encoder) oids(ids []objects.OID) {
	e.uv(uint64(len(ids)))
	for _, id := range ids {
		e.oid(id)
	}
}

// decodeLayer parses and checks a layer file: size, checksum, version,
// hash, every count against the bytes left and every order. Whether its
// runs and events fit the catalog below it is checked when it is applied.
func decodeLayer(file []byte, algo objects.Algo) (*delta, error) {
	if len(file) < len(layerMagic)+8+checksumSize || !bytes.HasPrefix(file, []byte(layerMagic)) {
		return nil, fmt.Errorf("%w: layer truncated or bad magic", ErrCorrupt)
	}
	n := len(file) - checksumSize
	h := objects.SHA256.New()
	h.Write(file[:n])
	if !bytes.Equal(h.Sum(nil), file[n:]) {
		return nil, fmt.Errorf("%w: layer checksum mismatch", ErrCorrupt)
	}
	d := &decoder{b: file[:n-8], off: len(layerMagic)}
	if v := d.uv(); d.err == nil && v != Version {
		return nil, fmt.Errorf("%w: layer version %d, want %d", ErrCorrupt, v, Version)
	}
	if a := objects.Algo(d.str()); d.err == nil && a != algo {
		d.fail("layer for %q objects, the repository uses %s", a, algo)
	}
	l := &delta{}
	l.refs = decodeList(d, 2, func(r, prev *RefEntry) {
		r.Name = d.str()
		r.ID = d.oid(algo, "", true)
		if d.err == nil && (r.Name == "" || prev != nil && prev.Name >= r.Name) {
			d.fail("layer refs out of order at %q", r.Name)
		}
	})
	l.events = decodeList(d, 34, func(s, prev *EventSummary) {
		d.eventFields(s, algo)
		if d.err == nil && prev != nil && compareOID(prev.ID, s.ID) >= 0 {
			d.fail("layer events out of order at %s", s.ID)
		}
		if !s.Missing {
			s.parentIDs = d.oidList(algo, objects.TypeEvent)
		}
	})
	l.runs = decodeList(d, 40, func(r, prev *layerRun) {
		d.layerRun(r, algo)
		if d.err == nil && prev != nil && compareOID(prev.entry.Run, r.entry.Run) >= 0 {
			d.fail("layer runs out of order at %s", r.entry.Run)
		}
	})
	scratch := &data{algo: algo}
	d.atts(scratch)
	l.atts = scratch.atts
	l.attsGone = d.sortedOIDs(algo, objects.TypeAttestation)
	d.anns(scratch)
	l.anns = scratch.anns
	l.annsGone = d.sortedOIDs(algo, objects.TypeAnnotation)
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d trailing bytes in a layer", len(d.b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	if got := binary.LittleEndian.Uint64(file[n-8 : n]); got != l.entries() {
		return nil, fmt.Errorf("%w: layer trailer counts %d entries, body holds %d", ErrCorrupt, got, l.entries())
	}
	return l, nil
}

// layerRun reads one new run of a layer.
func (d *decoder) layerRun(r *layerRun, algo objects.Algo) {
	e := &r.entry
	e.Run = d.oid(algo, objects.TypeRun, false)
	e.Status = d.istr()
	e.HasCreatedAt, e.CreatedAt = d.flagFloat()
	e.Exact = d.flag()
	d.forkAndKeyed(e, algo)
	r.from = d.oid(algo, objects.TypeRun, true)
	p := d.uv()
	if d.err == nil && (p > math.MaxInt32 || r.from.IsZero() && p != 0) {
		d.fail("run %s: prefix %d", e.Run, p)
	}
	r.prefix = int(p)
	if r.inherit = d.flag(); d.err == nil && r.inherit && r.from.IsZero() {
		d.fail("run %s inherits the evidence rows of no run", e.Run)
	}
	r.own = d.oidList(algo, objects.TypeEvent)
	r.tips = d.oidList(algo, objects.TypeEvent)
}

// oidList reads a counted list of oids of type want.
func (d *decoder) oidList(algo objects.Algo, want objects.Type) []objects.OID {
	n := d.count(33)
	if n == 0 {
		return nil
	}
	out := make([]objects.OID, n)
	for i := range out {
		out[i] = d.oid(algo, want, false)
	}
	return out
}

// sortedOIDs reads a counted list of oids of type want, strictly sorted.
func (d *decoder) sortedOIDs(algo objects.Algo, want objects.Type) []objects.OID {
	out := d.oidList(algo, want)
	for i := 1; i < len(out) && d.err == nil; i++ {
		if compareOID(out[i-1], out[i]) >= 0 {
			d.fail("layer oids out of order at %s", out[i])
		}
	}
	return out
}
