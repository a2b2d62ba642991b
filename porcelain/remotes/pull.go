package remotes

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// PullOptions configures Pull.
type PullOptions struct {
	// Remote is a configured remote; "" means DefaultRemote.
	Remote string
	// Ref is the ref to pull ("main" means heads/main); "" is heads/main.
	Ref string
	Env
}

// PullResult is the receipt of a pull: the fetch and the local move.
type PullResult struct {
	Fetch *FetchResult `json:"fetch"`
	// Ref is the local ref; Move what happened to it.
	Move RefMove `json:"move"`
}

// Pull fetches one ref and fast-forwards the local ref to it: only when
// the remote run holds every event of the local run (the run analogue of
// a fast-forward: the remote run continues the local one). Otherwise it
// refuses, moving nothing, and names the commands that compare or keep
// both (diff, fork). A local run that holds every remote event and more is
// ahead: nothing moves and nothing is wrong. An absent local ref is
// created.
func Pull(ctx context.Context, r *plumbing.Repo, opt PullOptions) (*PullResult, error) {
	if opt.Remote == "" {
		opt.Remote = DefaultRemote
	}
	if opt.Ref == "" {
		opt.Ref = "heads/main"
	}
	name, err := LocalRef(opt.Ref)
	if err != nil {
		return nil, err
	}
	c, err := Connect(ctx, r, opt.Remote, opt.Env)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if c.Name == "" {
		return nil, fmt.Errorf("pull: %s is not a configured remote: pull moves a local ref from a tracking ref; run tine remote add NAME %s first", opt.Remote, opt.Remote)
	}
	fr, err := fetchWith(ctx, r, c, FetchOptions{Remote: opt.Remote, Refs: []string{name}, Depth: plumbing.NoDepth, Env: opt.Env})
	if err != nil {
		return nil, err
	}
	res := &PullResult{Fetch: fr, Move: RefMove{Ref: name, Local: name}}
	tracking := TrackingRef(c.Name, name)
	theirs, err := readRef(ctx, r, tracking)
	if err != nil {
		return res, err
	}
	if theirs.IsZero() {
		return res, fmt.Errorf("pull: %s was not fetched (its target is missing)", tracking)
	}
	mine, err := readRef(ctx, r, name)
	if err != nil {
		return res, err
	}
	res.Move.New = theirs.String()
	switch {
	case mine == theirs:
		res.Move.Status = "up-to-date"
		return res, nil
	case mine.IsZero():
		res.Move.Status = "created"
	default:
		res.Move.Old = mine.String()
		extra, missing, err := onlyEvents(ctx, r, mine, theirs)
		if err != nil {
			return res, err
		}
		if extra > 0 && missing == 0 {
			// The local run continues the remote one: nothing to take,
			// nothing diverged (git's "already up to date").
			res.Move.Status = "ahead"
			res.Move.Reason = fmt.Sprintf("%s the remote run lacks: tine push %s %s sends them", events(extra), c.Name, name)
			return res, nil
		}
		if extra > 0 {
			res.Move.Status = "refused"
			res.Move.Reason = fmt.Sprintf("%s the remote run lacks", events(extra))
			return res, fmt.Errorf("pull %s: %w: it has %s %s lacks; nothing moved: compare with tine diff %s %s, or keep both by forking the remote run (tine fork %s --from EVENT)",
				name, ErrNotFastForward, events(extra), tracking, name, tracking, tracking)
		}
		res.Move.Status = "fast-forward"
	}
	if err := r.Refs().Update(ctx, name, theirs, mine, "tine pull "+c.Name); err != nil {
		return res, fmt.Errorf("pull: move %s: %w", name, err)
	}
	_, _ = plumbing.OpenIndex(r).Update(ctx)
	return res, nil
}

// onlyEvents counts the events of run mine that run theirs does not list
// (extra) and those of theirs that mine does not (missing). Both must be
// runs; anything else can only be equal, and counts as diverged.
func onlyEvents(ctx context.Context, r *plumbing.Repo, mine, theirs objects.OID) (extra, missing int, err error) {
	if mine.Type != objects.TypeRun || theirs.Type != objects.TypeRun {
		return 1, 1, nil
	}
	a, err := runEventSet(ctx, r, mine)
	if err != nil {
		return 0, 0, err
	}
	b, err := runEventSet(ctx, r, theirs)
	if err != nil {
		return 0, 0, err
	}
	for id := range a {
		if !b[id] {
			extra++
		}
	}
	for id := range b {
		if !a[id] {
			missing++
		}
	}
	return extra, missing, nil
}

// runEventSet returns the oids a run lists in events (complete even in a
// shallow repository: the run object names them all).
func runEventSet(ctx context.Context, r *plumbing.Repo, id objects.OID) (map[objects.OID]bool, error) {
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	events, _ := o.Value.Get("events")
	set := make(map[objects.OID]bool, len(events.Array))
	for _, e := range events.Array {
		ev, err := objects.ParseOIDFor(r.Algo(), e.Str)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		set[ev] = true
	}
	return set, nil
}

// events spells a count of events.
func events(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}
