package loops

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// loopResolver validates what a LoopRecorder writes: links resolve to
// objects queued this session or already stored. Blobs are remembered by
// oid only, so states are not held in memory after they are queued.
type loopResolver struct {
	ctx   context.Context
	base  *plumbing.WriteResolver
	known map[objects.OID]*objects.Object
	// queued is every object queued this session (blobs and runs by oid
	// only).
	queued map[objects.OID]bool
}

// Resolve implements objects.Resolver.
func (l *loopResolver) Resolve(id objects.OID) (*objects.Object, error) {
	if o, ok := l.known[id]; ok {
		return o, nil
	}
	return l.base.Resolve(id)
}

// Shallow implements objects.Resolver.
func (l *loopResolver) Shallow(id objects.OID) bool { return l.base.Shallow(id) }

// Present implements objects.PresenceChecker.
func (l *loopResolver) Present(id objects.OID) (bool, error) {
	if l.queued[id] {
		return true, nil
	}
	return l.base.Present(id)
}

// resolver returns the session resolver, built on first use, reading
// stored objects under ctx (objects.Resolver takes no context, so the
// resolver carries the one of the call it serves).
func (lr *LoopRecorder) resolver(ctx context.Context) *loopResolver {
	if lr.lres == nil {
		lr.lres = &loopResolver{base: lr.res, known: map[objects.OID]*objects.Object{}, queued: map[objects.OID]bool{}}
	}
	lr.lres.ctx = ctx
	return lr.lres
}

// put validates o against what is queued or stored and queues it; an
// object already queued this session is not queued twice.
func (lr *LoopRecorder) put(ctx context.Context, o *objects.Object) error {
	res := lr.resolver(ctx)
	if res.queued[o.ID] {
		return nil
	}
	if _, err := objects.Validate(o, res); err != nil {
		return fmt.Errorf("loop %s: %s %s: %w", lr.opt.Name, o.Type, o.ID, err)
	}
	res.queued[o.ID] = true
	if o.Type == objects.TypeEvent {
		res.known[o.ID] = o
	}
	if _, err := lr.bw.Add(o); err != nil {
		return fmt.Errorf("loop %s: store %s: %w", lr.opt.Name, o.ID, err)
	}
	lr.stats.Objects++
	return nil
}

// putRun validates and queues run, branch b's newest run. Where b already
// has a run object (lastRun) and the repository no shallow boundary, run
// is checked against it by objects.ValidateAppend: only the events added
// since, never the branch's whole chain again, so a long loop's
// checkpoints cost the new iterations; otherwise (and for a run that is
// not such an append) put validates it in full.
func (lr *LoopRecorder) putRun(ctx context.Context, b *loopBranch, run *objects.Object) error {
	res := lr.resolver(ctx)
	if b.lastRun == nil || res.queued[run.ID] || res.base.HasShallowBoundary() {
		return lr.putRunFull(ctx, b, run)
	}
	_, err := objects.ValidateAppend(run, b.lastRun, res)
	if errors.Is(err, objects.ErrNotAppend) {
		return lr.putRunFull(ctx, b, run)
	}
	if err != nil {
		return fmt.Errorf("loop %s: %s %s: %w", lr.opt.Name, run.Type, run.ID, err)
	}
	res.queued[run.ID] = true
	if _, err := lr.bw.Add(run); err != nil {
		return fmt.Errorf("loop %s: store %s: %w", lr.opt.Name, run.ID, err)
	}
	lr.stats.Objects++
	b.keepRun(run)
	return nil
}

// keepRun remembers run as b's newest run object, for the next putRun;
// an ended branch gets no further run, so it keeps none (a loop may end
// many branches, each run O(events) in memory).
func (b *loopBranch) keepRun(run *objects.Object) {
	b.lastRun, b.lastBody = run, nil
	if b.ended {
		b.lastRun = nil
	}
}

// putRunFull is putRun's full validation (put).
func (lr *LoopRecorder) putRunFull(ctx context.Context, b *loopBranch, run *objects.Object) error {
	if err := lr.put(ctx, run); err != nil {
		return err
	}
	b.keepRun(run)
	return nil
}

// event builds an event from payload (redacted, SPEC §1.7, like every
// porcelain write), checks its metrics and queues it.
func (lr *LoopRecorder) event(ctx context.Context, payload objects.Value, blobs ...*objects.Object) (objects.OID, error) {
	payload, _ = objects.RedactValue(payload)
	if err := objects.CheckMetrics(payload); err != nil {
		return objects.OID{}, fmt.Errorf("loop %s: %w: %w", lr.opt.Name, runs.ErrBadEvent, err)
	}
	o, err := objects.NewJSONObject(lr.r.Algo(), objects.TypeEvent, 1, payload)
	if err != nil {
		return objects.OID{}, fmt.Errorf("loop %s: %w: %w", lr.opt.Name, runs.ErrBadEvent, err)
	}
	for _, b := range blobs {
		if b != nil {
			if err := lr.put(ctx, b); err != nil {
				return objects.OID{}, err
			}
		}
	}
	if err := lr.put(ctx, o); err != nil {
		return objects.OID{}, err
	}
	return o.ID, nil
}

// stateBlob is the blob holding a state's stored bytes, scrubbed of
// secrets (SPEC §1.7 blob scrub). The state digest stays the snapshot's,
// over the whole unredacted state (README "State snapshots are bounded").
func (lr *LoopRecorder) stateBlob(s loop.Snapshot) *objects.Object {
	return objects.NewBlob(lr.r.Algo(), objects.RedactBlob(s.Stored))
}

// runObject builds branch b's run as it stands: by splicing its new
// events and members into the bytes of its last run (spliceRun), or, for a
// branch's first run or where the splice declines, by the full encoder.
// Both give the same bytes (objects.RunBody.Append is NewJSONObject's
// encoding), so which one ran never shows.
func (lr *LoopRecorder) runObject(b *loopBranch, withResult bool) (*objects.Object, error) {
	status := runs.StatusRunning
	if b.ended {
		status = runs.StatusCompleted
		if b.gate == loop.GateError || b.gate == loop.GateCanceled {
			status = runs.StatusFailed
		}
	}
	set := []objects.Member{
		{Key: "created_at", Value: runs.UnixSeconds(b.created)},
		{Key: "roots", Value: runs.OIDValues(lr.roots())},
		{Key: "tips", Value: runs.OIDValues([]objects.OID{b.tip()})},
		{Key: "status", Value: objects.String(status)},
		{Key: "loop", Value: lr.runLoopValue(b, withResult)},
	}
	if b.forkedFrom.Kind == objects.KindObject {
		set = append(set, objects.Member{Key: "forked_from", Value: b.forkedFrom})
	}
	if lr.opt.Code != nil {
		set = append(set, objects.Member{Key: "manifests", Value: objects.ObjectValue(
			objects.Member{Key: "code", Value: objects.String(lr.opt.Code.ID.String())})})
	}
	if spliceRuns {
		if o := lr.spliceRun(b, set); o != nil {
			return o, nil
		}
	}
	set = append(set, objects.Member{Key: "events", Value: runs.OIDValues(b.events)})
	o, err := objects.NewJSONObject(lr.r.Algo(), objects.TypeRun, 1, objects.ObjectValue(set...))
	if err != nil {
		return nil, fmt.Errorf("loop %s: run of branch %s: %w", lr.opt.Name, b.id, err)
	}
	return o, nil
}

// spliceRuns is cleared by a test to build every run with the full
// encoder, which must give the same loop byte for byte.
var spliceRuns = true

// optionalRunMembers are the members of a loop's run that set may leave
// out; a splice drops them from the last run unless set has them.
var optionalRunMembers = map[string]bool{"forked_from": true, "manifests": true}

// spliceRun builds b's run from its last run's bytes: the events added
// since appended to its events list, every other member replaced by set's
// (objects.RunBody.Append: a copy of the last run's bytes, no Value or oid
// per event). It returns nil when b has no last run or the splice declines;
// runObject then encodes the run in full, which also reports any error.
func (lr *LoopRecorder) spliceRun(b *loopBranch, set []objects.Member) *objects.Object {
	if b.lastRun == nil {
		return nil
	}
	if b.lastBody == nil {
		body, err := objects.SplitRunBody(lr.r.Algo(), b.lastRun.Body)
		if err != nil {
			return nil
		}
		b.lastBody = body
	}
	n := b.lastBody.Len()
	if n > len(b.events) {
		return nil
	}
	o, err := b.lastBody.Append(b.events[n:], set, optionalRunMembers)
	if err != nil {
		return nil
	}
	return o
}

// roots are every branch run's roots: the init event, or the base run's
// roots when the loop continues one.
func (lr *LoopRecorder) roots() []objects.OID {
	if lr.opt.Base != nil && len(lr.opt.Base.Roots) > 0 {
		return lr.opt.Base.Roots
	}
	return []objects.OID{lr.root}
}

// maybeCheckpoint checkpoints when enough iterations or time have passed.
func (lr *LoopRecorder) maybeCheckpoint(ctx context.Context) error {
	if lr.iters < lr.opt.CheckpointEvery && lr.opt.Now().Sub(lr.lastCkpt) < lr.opt.CheckpointInterval {
		return nil
	}
	return lr.Checkpoint(ctx, nil)
}

// Checkpoint writes the run of every branch that changed since the last
// checkpoint, makes every queued object durable, then moves all their refs
// (and experiments/NAME/best when best is given) in one transaction.
func (lr *LoopRecorder) Checkpoint(ctx context.Context, best *loop.BestSnapshot) error {
	type move struct {
		ref    string
		run    objects.OID
		held   *objects.Object // the run object, when this checkpoint built it
		expect refs.Expect
		b      *loopBranch
	}
	var moves []move
	for _, id := range lr.order {
		b := lr.byID[id]
		if !b.dirty {
			continue
		}
		o, err := lr.runObject(b, true)
		if err != nil {
			return err
		}
		if err := lr.putRun(ctx, b, o); err != nil {
			return err
		}
		lr.stats.Runs++
		moves = append(moves, move{ref: lr.Ref(id), run: o.ID, held: o, expect: b.expect, b: b})
	}
	if best != nil {
		if b, ok := lr.byID[best.BranchID]; ok {
			run, held := b.run, (*objects.Object)(nil)
			for _, m := range moves {
				if m.b == b {
					run, held = m.run, m.held
				}
			}
			if run != lr.bestRun {
				moves = append(moves, move{ref: lr.Ref(LoopBestBranch), run: run, held: held, expect: lr.bestRef})
			}
		}
	}
	if err := lr.bw.Flush(); err != nil {
		return fmt.Errorf("loop %s: write objects: %w", lr.opt.Name, err)
	}
	lr.iters, lr.lastCkpt = 0, lr.opt.Now()
	if len(moves) == 0 {
		return nil
	}
	actor := lr.opt.Actor
	if actor == "" {
		actor = runs.DefaultActor
	}
	tx := lr.r.Refs().NewTransaction(actor)
	for _, m := range moves {
		// The runs this checkpoint built were just made durable: the
		// transaction checks them for presence, not by reading them back.
		if m.held != nil {
			tx.UpdateHeld(m.ref, m.held, m.expect)
		} else {
			tx.Update(m.ref, m.run, m.expect)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		if errors.Is(err, refs.ErrStale) {
			return fmt.Errorf("loop %s: a ref under %s moved while the loop ran: %w", lr.opt.Name, lr.prefix, err)
		}
		return fmt.Errorf("loop %s: move refs: %w", lr.opt.Name, err)
	}
	lr.stats.Checkpoints++
	for _, m := range moves {
		if m.b == nil {
			lr.bestRef, lr.bestRun = refs.ExpectValue(m.run), m.run
			continue
		}
		m.b.expect, m.b.run, m.b.dirty = refs.ExpectValue(m.run), m.run, false
	}
	return nil
}
