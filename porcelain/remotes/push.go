package remotes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// Errors of push and pull.
var (
	// ErrPushRejected means at least one ref did not move on the remote
	// (a conflict or a refusal); the result says which and why.
	ErrPushRejected = errors.New("rejected")
	// ErrNotFastForward means pull found local events the remote run lacks.
	ErrNotFastForward = errors.New("not a fast-forward")
)

// ExpectAbsent is the --expected-old spelling of "must not exist".
const ExpectAbsent = "absent"

// ExpectedOldSyntax reports whether s is spelled as --expected-old wants
// it: ExpectAbsent or a full oid (of either object format; Push checks it
// against the repository's).
func ExpectedOldSyntax(s string) bool {
	if s == ExpectAbsent {
		return true
	}
	_, err := objects.ParseOID(s)
	return err == nil
}

// PushOptions configures Push.
type PushOptions struct {
	// Remote is a configured name or a URL; "" means DefaultRemote.
	Remote string
	// Refs are the local refs to push ("main" means heads/main); none
	// (and no AllExperiments) means heads/main.
	Refs []string
	// AllExperiments adds every experiments/* ref.
	AllExperiments bool
	// ExpectedOld replaces the last fetched value as the value the remote
	// ref must hold: an oid, or "absent". Only with exactly one ref.
	ExpectedOld string
	Env
}

// PushResult is the receipt of a push.
type PushResult struct {
	Remote string `json:"remote"`
	URL    string `json:"url"`
	// Objects counts the objects sent, Bytes their bytes, Packs the
	// uploads (one operation for every ref).
	Objects int   `json:"objects_sent"`
	Bytes   int64 `json:"bytes"`
	Packs   int   `json:"packs"`
	// Refs is one entry per pushed ref.
	Refs []RefMove `json:"refs"`
}

// Push sends the closure of the named local refs' runs, with their
// associations, in one upload, then moves each remote ref by
// compare-and-swap from the value last fetched (its tracking ref; absent
// when never fetched) or opt.ExpectedOld. A ref that lost its CAS is never
// overwritten: the result names both values, and the error says how to
// resolve it. Without opt.ExpectedOld heads/* and experiments/* move only
// by fast-forward: a local run lacking any event of the remote run last
// fetched is refused, and nothing of it is sent. Moved refs update their
// tracking refs.
func Push(ctx context.Context, r *plumbing.Repo, opt PushOptions) (*PushResult, error) {
	if opt.Remote == "" {
		opt.Remote = DefaultRemote
	}
	names, err := pushNames(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	c, err := Connect(ctx, r, opt.Remote, opt.Env)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	current := map[string]objects.OID{}
	if c.Description.Exists {
		listed, err := c.ListRefs(ctx)
		if err != nil {
			return nil, fmt.Errorf("remote %s: %w", c.label(), err)
		}
		for _, ref := range listed {
			current[ref.Name] = ref.ID
		}
	}
	res := &PushResult{Remote: c.Name, URL: c.URL, Refs: []RefMove{}}
	var updates []remote.RefUpdate
	var wants []objects.OID
	var failed []string
	for _, name := range names {
		local, err := r.Refs().Read(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("push %s: %w", name, err)
		}
		expect, err := expectedOld(ctx, r, c, name, opt.ExpectedOld)
		if err != nil {
			return nil, err
		}
		if current[name] == local {
			wants = append(wants, local)
			res.Refs = append(res.Refs, RefMove{Ref: name, New: local.String(), Status: "up-to-date"})
			continue
		}
		if opt.ExpectedOld == "" && current[name] == expect {
			// A fetch moves the tracking ref, so the compare-and-swap
			// alone would let a plain push replace a run it never saw
			// extend this one; --expected-old is the explicit replace.
			// (A remote that moved since the fetch fails the CAS, which
			// says so.)
			lost, extra, err := lostEvents(ctx, r, name, expect, local)
			if err != nil {
				return nil, fmt.Errorf("push %s: %w", name, err)
			}
			if lost > 0 {
				mv, advice := notFastForward(c, name, expect, local, lost, extra)
				res.Refs = append(res.Refs, mv)
				failed = append(failed, advice)
				continue
			}
		}
		wants = append(wants, local)
		updates = append(updates, remote.RefUpdate{Name: name, Old: expect, New: local})
	}
	annUpdates, annMoves, err := annotationUpdates(ctx, r, names, wants, current)
	if err != nil {
		return nil, err
	}
	res.Refs = append(res.Refs, annMoves...)
	for _, u := range annUpdates {
		updates = append(updates, u)
		wants = append(wants, u.New)
	}
	set, err := pushSet(ctx, r, c, wants, current)
	if err != nil {
		return nil, err
	}
	if len(set.IDs) == 0 && len(updates) == 0 {
		if err := trackPushed(ctx, r, c.Name, res); err != nil {
			return res, err
		}
		return res, rejected(failed)
	}
	pr, err := c.Push(ctx, remote.PushRequest{Source: plumbing.TransferReader(r), Set: set, Verified: true, Updates: updates})
	if err != nil {
		return nil, fmt.Errorf("push to %s: %w; no ref moved", c.label(), err)
	}
	res.Objects, res.Bytes, res.Packs = pr.Objects, pr.Bytes, pr.Packs
	for _, rr := range pr.Refs {
		mv := RefMove{Ref: rr.Name, New: rr.New.String(), Status: "updated"}
		if !rr.Old.IsZero() {
			mv.Old = rr.Old.String()
		} else {
			mv.Status = "created"
		}
		if !rr.Updated {
			mv.Status, mv.Reason = "refused", errText(rr.Err)
			advice := mv.Reason
			var ce *remote.ConflictError
			if errors.As(rr.Err, &ce) {
				mv.Status = "conflict"
				mv.Reason, advice = conflictAdvice(c, ce, opt.ExpectedOld != "")
			}
			failed = append(failed, mv.Ref+": "+advice)
		}
		res.Refs = append(res.Refs, mv)
	}
	if err := trackPushed(ctx, r, c.Name, res); err != nil {
		return res, err
	}
	return res, rejected(failed)
}

// rejected is the error of a push whose refs in failed (each with its
// advice) did not move: nil when all moved, else ErrPushRejected naming
// the first.
func rejected(failed []string) error {
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrPushRejected, failed[0])
}

// errText spells a ref error for the receipt.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// conflictAdvice names both values (short) and adds the commands that
// resolve a lost CAS (full). given says the expected value came from
// --expected-old rather than the tracking ref.
func conflictAdvice(c *Connection, ce *remote.ConflictError, given bool) (short, full string) {
	name := c.label()
	found := "absent"
	if !ce.Actual.IsZero() {
		found = ce.Actual.String()
	}
	expected := "absent"
	if !ce.Expected.IsZero() {
		expected = ce.Expected.String()
	}
	short = fmt.Sprintf("the remote holds %s, not %s as last fetched", found, expected)
	if given {
		short = fmt.Sprintf("the remote holds %s, not %s as --expected-old said", found, expected)
	}
	if c.Name == "" {
		short = fmt.Sprintf("the remote holds %s, not %s as expected", found, expected)
		return short, fmt.Sprintf("%s; nothing was overwritten: push again with --expected-old %s to replace it, or name the remote (tine remote add) so fetch and push track it", short, found)
	}
	tracking := TrackingRef(c.Name, ce.Ref)
	return short, fmt.Sprintf("%s; nothing was overwritten: run tine fetch %s, compare with tine diff %s %s, then tine pull %s %s to take the remote run or push again with --expected-old %s to replace it",
		short, name, tracking, ce.Ref, name, ce.Ref, found)
}

// pushNames resolves the refs to push.
func pushNames(ctx context.Context, r *plumbing.Repo, opt PushOptions) ([]string, error) {
	var names []string
	for _, n := range opt.Refs {
		full, err := LocalRef(n)
		if err != nil {
			return nil, err
		}
		names = append(names, full)
	}
	if opt.AllExperiments {
		err := r.Refs().List(ctx, "experiments/", func(name string, _ objects.OID) error {
			names = append(names, name)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(opt.Refs) == 0 && !opt.AllExperiments {
		names = append(names, "heads/main")
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("push: nothing to push: the repository has no experiments/* ref: %w", plumbing.ErrBadInput)
	}
	if opt.ExpectedOld != "" && len(names) != 1 {
		return nil, fmt.Errorf("push: --expected-old names the value of one remote ref, and %d refs are pushed: %w", len(names), plumbing.ErrBadInput)
	}
	return names, nil
}

// expectedOld is the value the remote ref must hold: --expected-old, else
// the tracking ref (absent when never fetched, or for a bare URL).
func expectedOld(ctx context.Context, r *plumbing.Repo, c *Connection, name, given string) (objects.OID, error) {
	switch {
	case given == ExpectAbsent:
		return objects.OID{}, nil
	case given != "":
		id, err := objects.ParseOIDFor(r.Algo(), given)
		if err != nil {
			return objects.OID{}, fmt.Errorf("push: --expected-old %q: want a full oid or %q: %w", given, ExpectAbsent, plumbing.ErrBadInput)
		}
		return id, nil
	case c.Name == "":
		return objects.OID{}, nil
	}
	return readRef(ctx, r, TrackingRef(c.Name, name))
}

// trackPushed moves the tracking refs of the refs that are now on the
// remote (moved or up to date) to their pushed values.
func trackPushed(ctx context.Context, r *plumbing.Repo, remoteName string, res *PushResult) error {
	if remoteName == "" {
		return nil
	}
	tx := r.Refs().NewTransaction("tine push " + remoteName)
	n := 0
	for i, mv := range res.Refs {
		if mv.Status == "conflict" || mv.Status == "refused" || mv.Status == "skipped" || !isTracked(mv.Ref) {
			continue
		}
		id, err := objects.ParseOIDFor(r.Algo(), mv.New)
		if err != nil {
			return err
		}
		tracking := TrackingRef(remoteName, mv.Ref)
		cur, err := readRef(ctx, r, tracking)
		if err != nil {
			return err
		}
		res.Refs[i].Local = tracking
		if cur != id {
			tx.Update(tracking, id, refs.ExpectValue(cur))
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("the remote moved, but the tracking refs did not (tine fetch %s repairs them): %w", remoteName, err)
	}
	return nil
}

// annotationUpdates moves, with each pushed run, the run's annotation ref
// (annotations/<run digest>, `tine annotate`'s chain head) on the remote:
// created when absent there, moved when the local chain continues the
// remote's (a fast-forward, CAS from the remote's value), left alone and
// reported when the chains diverged. Refs named explicitly are skipped.
func annotationUpdates(ctx context.Context, r *plumbing.Repo, names []string, values []objects.OID, current map[string]objects.OID) ([]remote.RefUpdate, []RefMove, error) {
	var ups []remote.RefUpdate
	var moves []RefMove
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, v := range values {
		if v.Type != objects.TypeRun {
			continue
		}
		name := "annotations/" + v.Hex()
		if seen[name] {
			continue
		}
		seen[name] = true
		local, err := readRef(ctx, r, name)
		if err != nil {
			return nil, nil, err
		}
		theirs := current[name]
		switch {
		case local.IsZero() || local == theirs:
			continue
		case theirs.IsZero() || chainReaches(ctx, r, local, theirs):
			ups = append(ups, remote.RefUpdate{Name: name, Old: theirs, New: local})
		default:
			moves = append(moves, RefMove{Ref: name, New: local.String(), Old: theirs.String(), Status: "skipped",
				Reason: "the remote's annotation chain has notes this one lacks (tine fetch brings them)"})
		}
	}
	return ups, moves, nil
}
