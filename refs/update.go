package refs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Expect is what a compare-and-swap requires of a ref's current value. The
// zero Expect is ExpectAbsent, so forgetting to say is the safe choice.
type Expect struct {
	kind expectKind
	id   objects.OID
}

type expectKind uint8

const (
	expectAbsent expectKind = iota
	expectValue
	expectAny
	expectExists
)

// Expectations that need no value.
var (
	// ExpectAbsent requires the ref not to exist (create; `--create`, and
	// `tine promote` without --expected-old).
	ExpectAbsent = Expect{kind: expectAbsent}
	// ExpectAny accepts any current value, absent included (update-ref
	// without --old).
	ExpectAny = Expect{kind: expectAny}
	// ExpectExists accepts any current value but requires the ref to exist.
	ExpectExists = Expect{kind: expectExists}
)

// ExpectValue requires the ref to hold exactly id; the zero OID means
// ExpectAbsent.
func ExpectValue(id objects.OID) Expect {
	if id.IsZero() {
		return ExpectAbsent
	}
	return Expect{kind: expectValue, id: id}
}

// String describes the expectation.
func (e Expect) String() string {
	switch e.kind {
	case expectValue:
		return e.id.String()
	case expectAny:
		return "any value"
	case expectExists:
		return "any existing value"
	}
	return "absent"
}

// check compares the current value (zero = absent) with the expectation.
func (e Expect) check(name string, cur objects.OID) error {
	ok := false
	switch e.kind {
	case expectAbsent:
		ok = cur.IsZero()
	case expectValue:
		ok = cur == e.id
	case expectAny:
		ok = true
	case expectExists:
		ok = !cur.IsZero()
	}
	if ok {
		return nil
	}
	return &StaleError{Name: name, Expected: e.id, Actual: cur, AnyValue: e.kind == expectExists}
}

// Update moves ref name to newID if it currently holds expectedOld, where
// the zero OID means "must not exist" (SPEC §2.5). A mismatch is a
// *StaleError, a held guard a *LockedError; neither changes anything. The
// target is fetched and type-checked first, so a ref never points at a
// missing or wrongly typed object. A reflog row stamped with actor is
// appended after the ref moves.
func (s *Store) Update(ctx context.Context, name string, newID, expectedOld objects.OID, actor string) error {
	return s.UpdateExpect(ctx, name, newID, ExpectValue(expectedOld), actor)
}

// UpdateExpect is Update with an explicit expectation, e.g. ExpectAny for
// an unconditional update.
func (s *Store) UpdateExpect(ctx context.Context, name string, newID objects.OID, expect Expect, actor string) error {
	t := s.NewTransaction(actor)
	t.Update(name, newID, expect)
	return t.Commit(ctx)
}

// Create creates ref name at newID; it fails with a *StaleError if the ref
// exists.
func (s *Store) Create(ctx context.Context, name string, newID objects.OID, actor string) error {
	return s.UpdateExpect(ctx, name, newID, ExpectAbsent, actor)
}

// Verify checks, under name's guard, that its value meets expect, and
// changes nothing: the write path of a command that finds nothing to
// change (a tag already at its target). Holding the guard makes the answer
// exact against concurrent writers, and taking it makes such a command a
// writer like any other: it first recovers a dead writer's guard, staging
// file and journal, so a no-op after a crash leaves no leftover either. A
// mismatch is a *StaleError, a live writer's guard a *LockedError.
func (s *Store) Verify(ctx context.Context, name string, expect Expect) error {
	t := s.NewTransaction("")
	t.Verify(name, expect)
	return t.Commit(ctx)
}

// Delete removes ref name if its value meets expect (ExpectAny or
// ExpectExists to delete whatever it holds). A ref that does not exist is
// an error wrapping ErrNotFound, or a *StaleError when a value was
// expected. A damaged ref file (malformed, oversized, or an oid of the
// other hash), which no verb can read or move, is deleted by ExpectAny or
// ExpectExists; any other expectation fails on it. Deletion appends no reflog row (a row's new must be an oid,
// SPEC §2.6) and keeps the log: a later re-creation appends a row whose old
// is null, which marks the gap.
func (s *Store) Delete(ctx context.Context, name string, expect Expect) error {
	if expect.kind == expectAbsent {
		return fmt.Errorf("delete ref %s: %w: a deleted ref must exist", name, ErrBadExpect)
	}
	t := s.NewTransaction("")
	t.Delete(name, expect)
	return t.Commit(ctx)
}
