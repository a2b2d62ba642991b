package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// decode parses a whole catalog file: it checks the size, the trailer
// checksum and entry count, then the body (see decodeBody).
func decode(file []byte) (*data, error) {
	if len(file) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes is over the limit", ErrCorrupt, len(file))
	}
	if len(file) < len(magic)+8+checksumSize || !bytes.HasPrefix(file, []byte(magic)) {
		return nil, fmt.Errorf("%w: not a catalog file (truncated or bad magic)", ErrCorrupt)
	}
	n := len(file) - checksumSize
	h := objects.SHA256.New()
	h.Write(file[:n])
	if !bytes.Equal(h.Sum(nil), file[n:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	d, err := decodeBody(file[:n-8])
	if err != nil {
		return nil, err
	}
	if got := binary.LittleEndian.Uint64(file[n-8 : n]); got != d.entries() {
		return nil, fmt.Errorf("%w: trailer counts %d entries, body holds %d", ErrCorrupt, got, d.entries())
	}
	return d, nil
}

// decodeBody parses the bytes before the trailer and checks every
// invariant build guarantees: order, types, bounds and that the runs are
// exactly the run-typed targets of the ref snapshot.
func decodeBody(b []byte) (*data, error) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	d := &decoder{b: b, off: len(magic)}
	if v := d.uv(); d.err == nil && v != Version {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrVersion, v, Version)
	}
	out := &data{algo: objects.Algo(d.str())}
	if d.err == nil && !out.algo.Valid() {
		d.fail("unknown hash %q", out.algo)
	}
	out.rules = decodeList(d, 3, func(r, _ *EvidenceRule) {
		*r = EvidenceRule{Table: d.str(), Kind: d.str(), Path: d.str()}
	})
	d.refs(out)
	d.events(out)
	d.runs(out)
	d.atts(out)
	d.anns(out)
	if d.err == nil && d.off != len(b) {
		d.fail("%d trailing bytes", len(b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

func (d *decoder) refs(out *data) {
	out.refs = decodeList(d, 2, func(r, prev *RefEntry) {
		r.Name = d.str()
		r.ID = d.oid(out.algo, "", false)
		if d.err == nil && (r.Name == "" || prev != nil && prev.Name >= r.Name) {
			d.fail("refs out of order at %q", r.Name)
		}
	})
}

func (d *decoder) runs(out *data) {
	want := runTargets(out.refs)
	i := 0
	out.runs = decodeList(d, 2, func(r, _ *RunEntry) {
		r.Run = d.oid(out.algo, objects.TypeRun, false)
		r.Status = d.istr()
		r.HasCreatedAt, r.CreatedAt = d.flagFloat()
		r.Events = make([]int32, d.count(1))
		for j := range r.Events {
			n := d.uv()
			if d.err == nil && n >= uint64(len(out.events)) {
				d.fail("run %s names event %d of %d", r.Run, n, len(out.events))
			}
			r.Events[j] = int32(n)
		}
		r.Tips = make([]int32, d.count(1))
		for j := range r.Tips {
			n := d.uv()
			if d.err == nil && n >= uint64(len(out.events)) {
				d.fail("run %s names tip %d of %d", r.Run, n, len(out.events))
			}
			r.Tips[j] = int32(n)
		}
		r.Exact = d.flag()
		d.forkAndKeyed(r, out.algo)
		if d.err == nil && (i >= len(want) || want[i] != r.Run) {
			d.fail("run %s is not a ref target in order", r.Run)
		}
		i++
	})
	if d.err == nil && len(out.runs) != len(want) {
		d.fail("%d runs for %d run-typed ref targets", len(out.runs), len(want))
	}
}

// forkAndKeyed reads a run's forked_from and evidence rows.
func (d *decoder) forkAndKeyed(r *RunEntry, algo objects.Algo) {
	r.ForkExact = true
	if d.flag() {
		if r.ForkExact = d.flag(); r.ForkExact {
			r.Fork = &RunFork{Run: d.oid(algo, objects.TypeRun, true), Event: d.oid(algo, objects.TypeEvent, true), Reason: d.str()}
		}
	}
	r.Keyed = decodeList(d, 3, func(k, prev *KeyedEvent) {
		k.Event = d.oid(algo, objects.TypeEvent, false)
		k.Table, k.Key = d.istr(), d.str()
		if d.err == nil && (k.Table == "" || k.Key == "" || prev != nil && compareKeyed(*prev, *k) >= 0) {
			d.fail("evidence rows of run %s out of order", r.Run)
		}
	})
}

func (d *decoder) atts(out *data) {
	out.atts = decodeList(d, 8, func(a, prev *Attestation) {
		a.ID = d.oid(out.algo, objects.TypeAttestation, false)
		a.Target = d.oid(out.algo, objects.TypeRun, true)
		a.Signer, a.Kind = d.istr(), d.istr()
		if n := d.count(2); n > MaxClaimFields {
			d.fail("%d claim fields", n)
		} else if n > 0 {
			a.Fields = make([]Field, n)
		}
		for j := range a.Fields {
			a.Fields[j] = Field{Name: d.istr(), Value: d.istr()}
			if d.err == nil && j > 0 && a.Fields[j-1].Name >= a.Fields[j].Name {
				d.fail("claim fields of %s out of order", a.ID)
			}
		}
		if n := d.count(9); n > MaxScores {
			d.fail("%d scores", n)
		} else if n > 0 {
			a.Scores = make([]Score, n)
		}
		for j := range a.Scores {
			a.Scores[j] = Score{Name: d.istr(), Value: d.float()}
			if d.err == nil && j > 0 && a.Scores[j-1].Name >= a.Scores[j].Name {
				d.fail("scores of %s out of order", a.ID)
			}
		}
		a.Signed = d.flag()
		a.SignedAt = d.str()
		if d.err == nil && prev != nil && compareOID(prev.ID, a.ID) >= 0 {
			d.fail("attestations out of order at %s", a.ID)
		}
	})
}

func (d *decoder) anns(out *data) {
	out.anns = decodeList(d, 2, func(a, prev *Annotation) {
		a.ID = d.oid(out.algo, objects.TypeAnnotation, false)
		a.Target = d.oid(out.algo, "", true)
		if d.err == nil && prev != nil && compareOID(prev.ID, a.ID) >= 0 {
			d.fail("annotations out of order at %s", a.ID)
		}
	})
}

// compareKeyed orders evidence rows by table, key, then event.
func compareKeyed(a, b KeyedEvent) int {
	return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Key, b.Key), compareOID(a.Event, b.Event))
}

// events reads the event summaries, sorted by oid.
func (d *decoder) events(out *data) {
	n := d.count(34)
	// Spare room for the events a few layers add (apply merges them in
	// place rather than copying the table).
	out.events = make([]EventSummary, n, n+n/64+16)
	for i := range out.events {
		s := &out.events[i]
		d.eventFields(s, out.algo)
		if d.err == nil && i > 0 && compareOID(out.events[i-1].ID, s.ID) >= 0 {
			d.fail("events out of order at %s", s.ID)
		}
		if s.Missing || d.err != nil {
			continue
		}
		if n := d.count(1); n > 0 {
			s.parents = d.ints(n)
		}
		for j := range s.parents {
			n := d.uv()
			if d.err == nil && (n >= uint64(len(out.events)) || n == uint64(i)) {
				d.fail("event %s names parent %d of %d", s.ID, n, len(out.events))
			}
			s.parents[j] = int(n)
		}
	}
}

// eventFields reads an event summary up to its parents.
func (d *decoder) eventFields(s *EventSummary, algo objects.Algo) {
	s.ID = d.oid(algo, objects.TypeEvent, false)
	s.Missing = d.flag()
	if s.Missing || d.err != nil {
		return
	}
	s.Kind, s.Label = d.istr(), d.istr()
	s.HasTime, s.Time = d.flagFloat()
	s.Cost, s.Duration, s.Tokens = d.float(), d.float(), d.float()
	if s.HasExit = d.flag(); s.HasExit && d.err == nil {
		n, k := binary.Varint(d.b[d.off:])
		if k <= 0 {
			d.fail("bad exit code")
		} else {
			d.off += k
			s.ExitCode = n
		}
	}
	s.HasScore, s.Score = d.flagFloat()
	if n := d.count(2); n > MaxParams {
		d.fail("%d params", n)
	} else if n > 0 {
		s.Params = make([]Param, n)
	}
	for j := range s.Params {
		s.Params[j] = Param{Name: d.istr(), Value: d.istr()}
		if d.err == nil && (s.Params[j].Name == "" || j > 0 && s.Params[j-1].Name >= s.Params[j].Name) {
			d.fail("params of %s out of order", s.ID)
		}
	}
	s.Argv = d.str()
	s.Model, s.Tool, s.Error = d.istr(), d.istr(), d.str()
	if n := d.count(1); n > MaxArgvWords {
		d.fail("%d argv words", n)
	} else if n > 0 {
		s.Words = make([]string, n)
	}
	for j := range s.Words {
		s.Words[j] = d.istr()
	}
	s.Exact = d.flag()
}
