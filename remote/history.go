package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Errors of the history check.
var (
	// ErrMissingHistory means a ref update was refused because its new
	// value reaches, by links, an object the repository does not store.
	// The *MissingHistoryError carrying it names the objects.
	ErrMissingHistory = errors.New("history is not stored")
)

// MissingHistoryError is a ref update HistoryCheck refused: Target, the
// new value, reaches Missing through From, and Missing is not stored.
type MissingHistoryError struct {
	Ref                   string
	Target, Missing, From objects.OID
}

// Error names the ref, the target and the missing object.
func (e *MissingHistoryError) Error() string {
	return fmt.Sprintf("ref %s: %s reaches %s through %s, which is not stored", e.Ref, e.Target, e.Missing, e.From)
}

// Unwrap makes errors.Is(err, ErrMissingHistory) hold.
func (e *MissingHistoryError) Unwrap() error { return ErrMissingHistory }

// HistoryCheck refuses to move a ref to a value whose history (its link
// closure: a run's events, their parents, blobs and the rest) the
// repository does not fully store, as a pack install requires of every
// link leaving the pack (objects.InstallPackFrame). A stored target alone
// is not enough: an object written into the repository another way (a
// local tine, a restored backup, a damaged disk) may lack part of its
// history, and a ref naming it would hand every reader a run it cannot
// read. `tine serve` runs it before every ref update, and so does a push
// to a path remote.
//
// The walk costs the new work. What the repository's refs already name is
// held: each ref passed the same check when it moved (or was written by a
// tine that stored its history first), so the walk stops there. Which
// refs are consulted is bounded: see Check.
type HistoryCheck struct {
	// Objects is the repository's store; every object walked is read
	// (verified) from it or confirmed stored in it.
	Objects objects.Store
	// Refs, when set, are the repository's refs, consulted when a ref is
	// created; nil holds nothing but the update's old value.
	Refs *refs.Store
	// Recent, when set, returns objects this process installed into the
	// store and verified (a push's receiver): the walk reads them from
	// memory, each still confirmed stored. It answers objects.ErrNotFound
	// for what it lacks.
	Recent objects.Getter
	// Stored, when set, reports objects known to be stored without
	// asking the store: installed by this process under the repository's
	// writers' lock, which it has held since, so no prune can have
	// removed them (a path push's RepoSink.Stored). They are neither
	// confirmed nor, for blobs, looked up; their links are still walked.
	Stored func(objects.OID) bool
	// Links, when set, holds links already parsed (a RepoSink's, for
	// what it installed), so the walk parses each object once.
	Links LinkMemo
	// Shallow, when set, is the repository's shallow boundary: oids it
	// records as absent by design (a shallow clone), which a link may
	// name as a pack install allows. They count as held.
	Shallow map[objects.OID]bool
}

// Check returns nil when the ref name may move from old to target: every
// object target reaches by links is stored or held. Otherwise it returns a
// *MissingHistoryError, or the error that stopped the walk.
//
// Held, for an update (old set): old and its links. The compare-and-swap
// moves the ref only from old, so a run that extends old's run reads only
// the appended events; a caller skips the check when the ref does not
// hold old, since it will not move. An update to old itself checks
// nothing.
//
// Held, for a creation (old zero): the value of every existing ref, and,
// for a run target listing many events not yet held, the events existing
// run refs' runs list (a run lists every event of its history), read run
// by run, heads/* first, until the target's events are all held or the
// runs read list heldLookupFactor times as many events as were left,
// each read counting heldLookupFactor events besides those it lists (at
// most one run object past that). A second name for a run reads nothing;
// a fork of heads/main reads heads/main's run object and the fork's own
// new events; a run no ref shares anything with pays at most one run
// object, or a bounded share of its own walk, on top of that walk.
func (c HistoryCheck) Check(ctx context.Context, name string, old objects.OID, target *objects.Object) error {
	if old == target.ID {
		return nil // the ref stays where it is: nothing new to check
	}
	w := &historyWalk{ctx: ctx, store: c.Objects, recent: c.Recent, stored: c.Stored, links: c.Links, seen: map[objects.OID]bool{target.ID: true}}
	if w.recent == nil {
		w.recent = noObjects{}
	}
	if w.stored == nil {
		w.stored = func(objects.OID) bool { return false }
	}
	for id := range c.Shallow {
		w.seen[id] = true
	}
	var runs []objects.OID
	if old.IsZero() && c.Refs != nil {
		var err error
		if runs, err = w.listRefs(c.Refs); err != nil {
			return fmt.Errorf("ref %s: list refs: %w", name, err)
		}
		if w.tips[target.ID] {
			return nil // a second name: the run is held whole
		}
	}
	links, err := w.links.Links(target)
	if err != nil {
		return fmt.Errorf("ref %s: %w", name, err)
	}
	if !old.IsZero() {
		if err := w.holdOld(old); err != nil {
			return fmt.Errorf("ref %s: old value %s: %w", name, old, err)
		}
	} else if target.Type == objects.TypeRun {
		if err := w.holdRuns(links, runs); err != nil {
			return fmt.Errorf("ref %s: runs existing refs name: %w", name, err)
		}
	}
	if err := w.walk(target.ID, links); err != nil {
		var m *MissingHistoryError
		if errors.As(err, &m) {
			m.Ref, m.Target = name, target.ID
			return m
		}
		return fmt.Errorf("ref %s: history of %s: %w", name, target.ID, err)
	}
	return nil
}

// noObjects is a Getter holding nothing.
type noObjects struct{}

// Get answers objects.ErrNotFound.
func (noObjects) Get(_ context.Context, id objects.OID) (*objects.Object, error) {
	return nil, objects.NotFound(id)
}
