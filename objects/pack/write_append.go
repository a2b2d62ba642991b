package pack

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Appends (delta.go). A run appended one event at a time is a chain of
// snapshots; WriteAppendPack stores each new snapshot as a delta against
// an earlier snapshot of its chain, chosen by the chain position n of the
// new run like a Fenwick tree: the base is the snapshot at position
// n & (n-1) (n with its lowest set bit cleared), which is always on the
// predecessor's chain. So a read follows at most popcount(n) deltas (14 at
// 10,000 appends) and a delta holds the lowbit(n) runs' worth of new
// oids, n·log₂(n)/2 entries in all: storage grows with the events, not
// with the square of the run's length. A run whose predecessor is not
// packed (a loose run, the first append after an import) is stored whole
// and starts a new chain at position 0.

// MaxAppendDepth bounds the chain an append builds: a base deeper than
// this (only a chain other writers built can be) is not used.
const MaxAppendDepth = 64

// spLink is one snapshot on a chain: where it is and its position.
type spLink struct {
	p   *spPack
	i   int
	pos uint32
}

// WriteAppendPack writes objs as one new pack, durably, and puts it first
// in the search order. The last object must be a run that extends the run
// base (the zero OID for none): it is stored as a delta on base's chain
// when base is packed (see above), else whole. It returns the pack's name.
func (s *Store) WriteAppendPack(ctx context.Context, objs []*objects.Object, base objects.OID) (string, error) {
	return s.writeAppend(ctx, objs, base, false)
}

// WriteForkPack is WriteAppendPack for a fork: the run (a subset of
// base's events with its own forked_from and created_at) is a delta on
// base itself, at the position after it, when base is packed.
func (s *Store) WriteForkPack(ctx context.Context, objs []*objects.Object, base objects.OID) (string, error) {
	return s.writeAppend(ctx, objs, base, true)
}

// writeAppend is WriteAppendPack, or WriteForkPack when fork is set.
func (s *Store) writeAppend(ctx context.Context, objs []*objects.Object, base objects.OID, fork bool) (string, error) {
	if len(objs) == 0 || objs[len(objs)-1].Type != objects.TypeRun {
		return "", fmt.Errorf("append pack: the last object must be a run")
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	w, err := NewWriter(s.dir, s.algo, Options{DeltaDepth: -1})
	if err != nil {
		return "", err
	}
	run := objs[len(objs)-1]
	for _, o := range objs[:len(objs)-1] {
		if err := w.Add(o); err != nil {
			w.Abort()
			return "", err
		}
	}
	if err := objects.CheckPut(s.algo, run); err != nil {
		w.Abort()
		return "", err
	}
	if blk := s.appendDelta(base, run, fork); blk != nil && w.err == nil {
		if _, dup := w.seen[run.ID]; !dup {
			w.seen[run.ID] = struct{}{}
			e := spEntry{key: spKeyOf(run.ID), length: uint32(len(run.Stored()))}
			w.deltas = append(w.deltas, spEntryBlock{e: e, blk: blk})
		}
	} else if err := w.Add(run); err != nil {
		w.Abort()
		return "", err
	}
	return s.commitInstall(w)
}

// appendDelta returns the delta block storing run on base's chain (on
// base itself for a fork), or nil when run is better stored whole.
func (s *Store) appendDelta(base objects.OID, run *objects.Object, fork bool) []byte {
	if base.IsZero() || base.Algo != s.algo {
		return nil
	}
	chain := s.chainOf(spKeyOf(base))
	if len(chain) == 0 || chain[0].pos == 1<<32-1 {
		return nil
	}
	n := chain[0].pos + 1
	want, pick := n&(n-1), -1
	for j, l := range chain {
		if l.pos == want {
			pick = j
			break
		}
	}
	if pick < 0 || fork {
		pick = 0 // a fork, or positions not Fenwick's: the predecessor
	}
	if len(chain)-1-pick >= MaxAppendDepth {
		return nil
	}
	l := chain[pick]
	id := l.p.idx.oid(l.i, s.algo)
	env, err := l.p.sharedEnvelope(id, l.p.idx.entry(l.i), 0)
	if err != nil {
		return nil
	}
	target := run.Stored()
	ops := encodeDelta(env, target)
	if len(ops) >= len(target) || spBlockHeader+spDeltaHeader+len(ops) > spStreamRead {
		return nil
	}
	return appendDeltaBlock(nil, uint32(len(target)), spKeyOf(run.ID), spKeyOf(id), n, ops)
}

// chainOf returns the chain of the packed object k: k first, then each
// delta's base down to a whole object, reading only block headers. It is
// empty when k is not packed or the chain cannot be followed (a damaged
// block, a base missing, a chain over MaxDeltaChain).
func (s *Store) chainOf(k spKey) []spLink {
	var chain []spLink
	var p *spPack
	i, ok := 0, false
	// Packs that cannot be opened give no chain: the run is stored whole,
	// and the commit's install reports the failure.
	ps, _ := s.current()
	for _, q := range ps {
		if i, ok = q.idx.find(k); ok {
			p = q
			break
		}
	}
	for ok && len(chain) < MaxDeltaChain {
		e := p.idx.entry(i)
		if !p.isDeltaBlock(e) {
			return append(chain, spLink{p: p, i: i})
		}
		head := make([]byte, spBlockHeader+spDeltaHeader)
		if _, err := p.f.ReadAt(head, int64(e.off)); err != nil {
			return nil
		}
		var bk spKey
		copy(bk[:], head[spBlockHeader+spKeySize:])
		chain = append(chain, spLink{p: p, i: i, pos: binary.BigEndian.Uint32(head[spBlockHeader+2*spKeySize:])})
		p, i, ok = p.findBase(bk)
	}
	return nil
}
