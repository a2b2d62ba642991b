package refs

import (
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Sentinel errors of package refs.
var (
	// ErrNotFound reports that a ref does not exist. It is wrapped with the
	// ref's name.
	ErrNotFound = errors.New("ref not found")
	// ErrLocked reports that a live writer holds a ref's guard (or the
	// shallow file's). *LockedError matches it with errors.Is; callers may
	// retry.
	ErrLocked = errors.New("locked by another writer")
	// ErrStale reports a failed compare-and-swap. *StaleError matches it
	// with errors.Is; use errors.As for the values.
	ErrStale = errors.New("stale ref")
	// ErrNotRegular reports a ref, reflog or shallow path that is a symlink,
	// a directory, a device or a hard-linked file (SPEC §2.3, §2.4, §2.7).
	ErrNotRegular = errors.New("not a regular, singly linked file")
	// ErrBadExpect reports an expectation that makes no sense for the
	// operation, such as deleting a ref that must be absent.
	ErrBadExpect = errors.New("invalid expectation")
	// ErrTornReflog reports a reflog whose last row has no LF: a crash hit
	// the append. The complete rows before it are still valid.
	ErrTornReflog = errors.New("torn final reflog row")
	// ErrMalformedReflog reports a reflog row that is not one canonical
	// JSON object with exactly the five row keys.
	ErrMalformedReflog = errors.New("malformed reflog row")
	// ErrNameClash reports a ref whose name is a directory of other refs,
	// or lies below another ref (heads/a and heads/a/b): refs are files,
	// so both cannot exist. Nothing was written.
	ErrNameClash = errors.New("name clash")
	// ErrDuplicateRef reports a transaction naming the same ref twice.
	ErrDuplicateRef = errors.New("ref named twice in one transaction")
)

// StaleError reports a compare-and-swap whose expectation did not hold: the
// ref's current value is not the one the caller based its update on. A zero
// OID stands for "absent" in both fields. When the caller accepted any
// current value but needed the ref to exist, Expected is zero and AnyValue
// is set.
type StaleError struct {
	Name     string
	Expected objects.OID
	Actual   objects.OID
	// AnyValue is set when the expectation was "exists, any value".
	AnyValue bool
}

// Error names the ref and both values; a ref expected to exist with any
// value that is absent is said not to exist, as nothing about it is stale.
func (e *StaleError) Error() string {
	exp := describe(e.Expected)
	if e.AnyValue {
		if e.Actual.IsZero() {
			return fmt.Sprintf("ref %s does not exist", e.Name)
		}
		exp = "any existing value"
	}
	return fmt.Sprintf("ref %s is stale: expected %s, found %s", e.Name, exp, describe(e.Actual))
}

// Is makes errors.Is(err, ErrStale) true for a *StaleError.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// describe spells an oid for messages, with "absent" for the zero OID.
func describe(id objects.OID) string {
	if id.IsZero() {
		return "absent"
	}
	return id.String()
}

// LockedError reports that a live writer holds a ref's guard (or the
// shallow file's): another process is updating it at this moment (SPEC
// §2.5: the writer fails instead of waiting). A guard whose tine writer
// died is never reported: the next writer recovers it (the package
// documentation, "Guards and liveness"). A foreign guard (OpenTine takes
// no flock) is reported, since its writer may be alive.
type LockedError struct {
	// Name is the ref's normalized name, or "shallow".
	Name string
	// Path is the guard file.
	Path string
	// Foreign is set when tine did not create the guard.
	Foreign bool
}

// Error names the ref and the guard, and says what to do.
func (e *LockedError) Error() string {
	if e.Foreign {
		return fmt.Sprintf("%s is locked: guard %s was not created by tine (another tool, such as OpenTine, may be updating it); "+
			"retry, and if it persists run `tine fsck --remove-stale --stale-after 0s`", e.Name, e.Path)
	}
	return fmt.Sprintf("%s is locked: a running process is updating it now (it holds the guard %s); "+
		"retry when it has finished (a guard left by a process that died is recovered automatically)", e.Name, e.Path)
}

// Is makes errors.Is(err, ErrLocked) true for a *LockedError.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }
