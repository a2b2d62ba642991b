package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// checkHistory refuses u unless everything its new value reaches by links
// is stored in the remote repository or held by its refs, the rule `tine
// serve` applies (HistoryCheck): a push sends only what the remote lacks,
// so a remote that stores the new run but not all of its history (written
// by another tool, or a damaged disk) would otherwise get a ref naming a
// run it cannot read. sink holds what this push installed, read from
// memory and known stored. A shallow repository's boundary counts as held: its absence is
// recorded, and installs accept links to it.
//
// The repository's writers' lock is taken before the walk, not at the
// ref's move: a gc pruning in between could delete history the walk found
// stored. A ref that does not hold u.Old is not walked, and the update is
// refused then with the *ConflictError the compare-and-swap would give:
// were the swap still tried, another writer moving the ref to u.Old in
// between (or the release policy's guard, which runs in between) would
// let it set a value whose history was never checked.
func (t *fileTransport) checkHistory(ctx context.Context, u RefUpdate, sink *RepoSink) error {
	if err := t.repo.LockWriters(ctx); err != nil {
		return fmt.Errorf("ref %s: %w", u.Name, err)
	}
	switch cur, err := t.repo.Refs().Read(ctx, u.Name); {
	case err == nil && cur != u.Old:
		return &ConflictError{Ref: u.Name, Expected: u.Old, Actual: cur}
	case errors.Is(err, refs.ErrNotFound) && !u.Old.IsZero():
		return &ConflictError{Ref: u.Name, Expected: u.Old}
	}
	target, err := sink.Get(ctx, u.New) // installed by this push: stored
	if err != nil {
		target, err = t.repo.Objects().Get(ctx, u.New)
	}
	if errors.Is(err, objects.ErrNotFound) {
		return fmt.Errorf("ref %s: %s is not stored in %s: %w", u.Name, u.New, t.path, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("ref %s: %w", u.Name, err)
	}
	shallow, err := t.repo.ShallowSet()
	if err != nil {
		return fmt.Errorf("ref %s: %w", u.Name, err)
	}
	check := HistoryCheck{Objects: t.repo.Objects(), Refs: t.repo.Refs(), Recent: sink, Stored: sink.Stored, Links: sink.Links(), Shallow: shallow}
	err = check.Check(ctx, u.Name, u.Old, target)
	var m *MissingHistoryError
	if errors.As(err, &m) {
		return &pathHistoryError{m: m, path: t.path}
	}
	return err
}

// pathHistoryError is a path push's refusal for missing history, worded
// for the push's report (which names the ref) with what to do.
type pathHistoryError struct {
	m    *MissingHistoryError
	path string
}

// Error names the run, the missing object and how to restore it.
func (e *pathHistoryError) Error() string {
	return fmt.Sprintf("%s reaches %s through %s, which is not stored in %s: copy that history there first (tine pack in a repository that has it, tine unpack in %s), then push again",
		e.m.Target, e.m.Missing, e.m.From, e.path, e.path)
}

// Unwrap makes the refusal both the *MissingHistoryError and a
// remote.ErrNotFound, as `tine serve`'s 404 is.
func (e *pathHistoryError) Unwrap() []error { return []error{e.m, ErrNotFound} }
