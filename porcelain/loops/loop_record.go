package loops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tinehq/tine/loop"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// A loop as runs (ARCHITECTURE §4): every branch of loop L is a run at
// experiments/L/<branch>, and the best branch's run is also at
// experiments/L/best. All branches share one root event (phase "init",
// holding the initial state); a branch's run is its ancestor chain, so a
// fork's run starts with its parent's events up to the fork point, shared by
// oid. Event kinds (free by SPEC §1.5; chosen here and documented in
// README): "loop" for the init event and for every iteration, "policy" for
// a policy gate (budgets, min-score, pruning), "done" closing every branch.
//
// Writing: objects are queued in link order (blobs, then parents before
// children, then runs) on a plumbing.BulkWriter, and refs move in one
// refs.Transaction per checkpoint: every CheckpointEvery iterations, every
// CheckpointInterval of the clock, and at Finish. A batch renames its
// objects in queue order, and the transaction commits only after the batch
// is durable, so a crash leaves refs at the previous checkpoint, pointing
// at complete runs; anything newer is unreferenced garbage, never a dangling
// link.

// Checkpoint defaults of a LoopRecorder.
const (
	DefaultLoopCheckpointEvery    = 64
	DefaultLoopCheckpointInterval = time.Second
)

// LoopBestBranch is the ref component naming the best branch of a loop.
const LoopBestBranch = "best"

// ErrLoopName means a loop name that cannot be a ref component, or a loop
// whose refs already exist.
var ErrLoopName = errors.New("bad loop name")

// LoopRecorderOptions configures NewLoopRecorder.
type LoopRecorderOptions struct {
	// Name is the loop's name: its branches live under experiments/Name/.
	Name string
	// CheckpointEvery and CheckpointInterval bound how much a crash can
	// lose; zero fields take the defaults above. CheckpointEvery 1 moves
	// every live branch's ref after every iteration.
	CheckpointEvery    int
	CheckpointInterval time.Duration
	// Now is the wall clock for checkpoints and run created_at; nil means
	// time.Now.
	Now func() time.Time
	// Actor names the writer in the reflogs.
	Actor string
	// Base is the run the loop continues (tine loop run on the current
	// run), nil for a loop of its own: its events come first in every
	// branch's run, and the init event's parents are its tips.
	Base *runs.Run
	// Code is the code state the loop runs in (a runs.CaptureWorkspace
	// manifest blob), named by every branch run's manifests under "code";
	// nil records none.
	Code *objects.Object
}

// LoopRecorder is a loop.Recorder that writes a loop into a repository as
// runs, one per branch (see the package comment above). It is not safe for
// concurrent use; the engine calls it from one goroutine.
type LoopRecorder struct {
	r      *plumbing.Repo
	opt    LoopRecorderOptions
	prefix string
	bw     *plumbing.BulkWriter
	res    *plumbing.WriteResolver
	lres   *loopResolver
	start  loop.StartRecord
	root   objects.OID // the init event
	byID   map[string]*loopBranch
	order  []string
	// totals after the latest iteration, for policy events
	totalSteps int
	iters      int // iterations since the last checkpoint
	lastCkpt   time.Time
	finished   bool
	bestRef    refs.Expect
	bestRun    objects.OID
	stats      LoopWriteStats
}

// LoopWriteStats counts what a LoopRecorder wrote.
type LoopWriteStats struct {
	Objects     int `json:"objects"`
	Runs        int `json:"runs"`
	Checkpoints int `json:"checkpoints"`
}

// loopBranch is the recorder's view of one branch's run.
type loopBranch struct {
	id, parent string
	events     []objects.OID // the run's events, a linear chain from root
	created    time.Time
	forkedFrom objects.Value // the run's forked_from, zero for the root
	fromIter   int
	expect     refs.Expect // the ref's value at the last checkpoint
	run        objects.OID // the run written at the last checkpoint
	// lastRun is the branch's newest run object queued (a checkpoint's, or
	// for a new branch its fork-point snapshot): the next run is built
	// from its bytes (spliceRun) and checked against it incrementally
	// (putRun). lastBody is lastRun split, once the next run needed it.
	lastRun  *objects.Object
	lastBody *objects.RunBody
	dirty    bool
	ended    bool
	gate     loop.Gate
	reason   string
	steps    int
	// adopted is the state the branch holds but has not evaluated yet.
	adopted *loop.Snapshot
	result  objects.Value // loop.result, on the best branch at Finish
}

func (b *loopBranch) tip() objects.OID { return b.events[len(b.events)-1] }

// NewLoopRecorder returns a recorder writing loop opt.Name into r. The name
// must make legal refs, and no ref may exist under experiments/Name/ yet.
func NewLoopRecorder(ctx context.Context, r *plumbing.Repo, opt LoopRecorderOptions) (*LoopRecorder, error) {
	prefix, err := loopPrefix(opt.Name)
	if err != nil {
		return nil, err
	}
	if err := refuseExistingLoop(ctx, r, opt.Name, prefix); err != nil {
		return nil, err
	}
	if opt.CheckpointEvery <= 0 {
		opt.CheckpointEvery = DefaultLoopCheckpointEvery
	}
	if opt.CheckpointInterval <= 0 {
		opt.CheckpointInterval = DefaultLoopCheckpointInterval
	}
	opt.Now = runs.Clock(opt.Now)
	res, err := r.NewWriteResolver(ctx)
	if err != nil {
		return nil, err
	}
	return &LoopRecorder{r: r, opt: opt, prefix: prefix, res: res,
		bw: plumbing.NewBulkWriter(ctx, r.Objects(), plumbing.BulkOptions{}), byID: map[string]*loopBranch{}}, nil
}

// loopPrefix validates a loop name and returns "experiments/NAME/".
func loopPrefix(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: empty", ErrLoopName)
	}
	ref, err := refs.NormalizeName("experiments/" + name + "/" + loop.RootBranch)
	if err != nil || ref != "experiments/"+name+"/"+loop.RootBranch {
		return "", fmt.Errorf("%w: %q cannot name refs experiments/%s/...", ErrLoopName, name, name)
	}
	return "experiments/" + name + "/", nil
}

// refuseExistingLoop refuses a name already used by a ref or a loop.
func refuseExistingLoop(ctx context.Context, r *plumbing.Repo, name, prefix string) error {
	if _, err := r.Refs().Read(ctx, "experiments/"+name); err == nil {
		return fmt.Errorf("%w: experiments/%s is a ref", runs.ErrRefExists, name)
	}
	found := ""
	err := r.Refs().List(ctx, prefix, func(n string, _ objects.OID) error {
		found = n
		return errStopList
	})
	if err != nil && !errors.Is(err, errStopList) {
		return err
	}
	if found != "" {
		return fmt.Errorf("%w: %s (loop %q was recorded before; choose another --name)", runs.ErrRefExists, found, name)
	}
	return nil
}

// errStopList ends a ref listing early.
var errStopList = errors.New("stop listing")

// Ref returns the ref of branch id of this loop.
func (lr *LoopRecorder) Ref(id string) string { return lr.prefix + id }

// Stats returns what has been written so far.
func (lr *LoopRecorder) Stats() LoopWriteStats { return lr.stats }

// Start implements loop.Recorder: the init event, root of every branch.
func (lr *LoopRecorder) Start(ctx context.Context, s loop.StartRecord) error {
	lr.start = s
	lr.lastCkpt = lr.opt.Now()
	if lr.opt.Code != nil {
		if err := lr.put(ctx, lr.opt.Code); err != nil {
			return err
		}
	}
	blob := lr.stateBlob(s.Initial)
	var base []objects.OID
	p := initPayload(lr.opt.Name, s, blob)
	if lr.opt.Base != nil {
		base = lr.opt.Base.EventIDs()
		p = withBase(p, lr.opt.Base)
	}
	ev, err := lr.event(ctx, p, blob)
	if err != nil {
		return err
	}
	lr.root = ev
	events := append(base[:len(base):len(base)], ev)
	b := &loopBranch{id: s.RootBranch, events: events, created: lr.opt.Now(), dirty: true}
	lr.add(b)
	return nil
}

// Iteration implements loop.Recorder: one event per executed step.
func (lr *LoopRecorder) Iteration(ctx context.Context, it loop.IterationRecord) error {
	b, err := lr.branch(it.BranchID)
	if err != nil {
		return err
	}
	lr.totalSteps = it.TotalSteps
	p, blobs, err := iterationPayload(lr.r.Algo(), lr.opt.Name, it, b.tip(), lr.stateBlob(it.State))
	if err != nil {
		return fmt.Errorf("loop %s: iteration %d: %w", lr.opt.Name, it.Iteration, err)
	}
	ev, err := lr.event(ctx, p, blobs...)
	if err != nil {
		return err
	}
	b.events = append(b.events, ev)
	b.steps = it.BranchStep
	b.adopted = nil
	for i := range it.Candidates {
		if c := &it.Candidates[i]; c.Outcome == loop.OutcomeContinue && c.BranchID == b.id {
			st := c.State
			b.adopted = &st
		}
	}
	b.dirty = true
	lr.iters++
	return lr.maybeCheckpoint(ctx)
}

// Fork implements loop.Recorder: a new branch whose run is the parent's
// chain up to the iteration that proposed its state.
func (lr *LoopRecorder) Fork(ctx context.Context, f loop.ForkRecord) error {
	parent, err := lr.branch(f.ParentBranch)
	if err != nil {
		return err
	}
	if _, dup := lr.byID[f.BranchID]; dup {
		return fmt.Errorf("loop %s: branch %s forked twice", lr.opt.Name, f.BranchID)
	}
	// The parent's run as it stood at the fork point, so forked_from names
	// a stored run (written in the next checkpoint, before any ref moves).
	snap, err := lr.runObject(parent, false)
	if err != nil {
		return err
	}
	if err := lr.putRun(ctx, parent, snap); err != nil {
		return err
	}
	// Both branches' next runs are spliced from snap: split it once.
	var snapBody *objects.RunBody
	if parent.lastRun == snap {
		if body, err := objects.SplitRunBody(lr.r.Algo(), snap.Body); err == nil {
			snapBody, parent.lastBody = body, body
		}
	}
	st := f.State
	n := len(parent.events)
	b := &loopBranch{id: f.BranchID, parent: f.ParentBranch, events: parent.events[:n:n], created: lr.opt.Now(),
		fromIter: f.FromIteration, adopted: &st, dirty: true, lastRun: snap, lastBody: snapBody,
		forkedFrom: objects.ObjectValue(
			objects.Member{Key: "event", Value: objects.String(parent.tip().String())},
			objects.Member{Key: "reason", Value: objects.String(fmt.Sprintf("loop %s: %s forks candidate %d (score %s) of iteration %d",
				lr.opt.Name, f.BranchID, f.CandidateIndex, loopNumberText(f.CandidateScore), f.FromIteration))},
			objects.Member{Key: "run", Value: objects.String(snap.ID.String())},
		)}
	lr.add(b)
	return nil
}

// End implements loop.Recorder: a policy event for a policy gate, then the
// done event; the branch's run records the gate in loop.gate.
func (lr *LoopRecorder) End(ctx context.Context, e loop.EndRecord) error {
	b, err := lr.branch(e.BranchID)
	if err != nil {
		return err
	}
	if b.ended {
		return fmt.Errorf("loop %s: branch %s ended twice", lr.opt.Name, b.id)
	}
	at := lr.start.Time.Add(e.Elapsed)
	if isPolicyGate(e.Gate) {
		ev, err := lr.event(ctx, policyPayload(lr.opt.Name, e, lr.start.Policy, lr.totalSteps, b.tip(), at))
		if err != nil {
			return err
		}
		b.events = append(b.events, ev)
	}
	var blob *objects.Object
	if b.adopted != nil {
		blob = lr.stateBlob(*b.adopted)
	}
	ev, err := lr.event(ctx, donePayload(lr.opt.Name, e, b.tip(), at, b.adopted, blob), blob)
	if err != nil {
		return err
	}
	b.events = append(b.events, ev)
	b.ended, b.gate, b.reason, b.dirty = true, e.Gate, e.Reason, true
	return nil
}

// Finish implements loop.Recorder: the loop's result on the best branch's
// run, then the last checkpoint, which also moves experiments/NAME/best.
func (lr *LoopRecorder) Finish(ctx context.Context, f loop.FinishRecord) error {
	if f.Best != nil {
		b, err := lr.branch(f.Best.BranchID)
		if err != nil {
			return err
		}
		b.result = resultValue(f)
		b.dirty = true
	}
	lr.finished = true
	return lr.Checkpoint(ctx, f.Best)
}

// Close writes whatever a run that stopped early (a recorder or strict
// error) left pending, so the partial loop stays inspectable; branches
// that did not end keep status running. After Finish it does nothing.
func (lr *LoopRecorder) Close(ctx context.Context) error {
	if lr.finished || lr.root.IsZero() {
		return nil
	}
	lr.finished = true
	return lr.Checkpoint(ctx, nil)
}

// add registers a new branch.
func (lr *LoopRecorder) add(b *loopBranch) {
	b.expect = refs.ExpectAbsent
	lr.byID[b.id] = b
	lr.order = append(lr.order, b.id)
}

// branch returns a known branch.
func (lr *LoopRecorder) branch(id string) (*loopBranch, error) {
	b, ok := lr.byID[id]
	if !ok {
		return nil, fmt.Errorf("loop %s: unknown branch %q", lr.opt.Name, id)
	}
	return b, nil
}

// isPolicyGate reports the gates decided by the loop's policy rather than
// by the step: budgets, min-score and max-branches pruning.
func isPolicyGate(g loop.Gate) bool {
	return g.IsBudget() || g == loop.GateMinScore || g == loop.GatePruned
}
