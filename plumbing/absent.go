package plumbing

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Absence by design and absence by damage.
//
// A repository stores the link closure of everything it holds, except
// where a shallow fetch cut it: the oids it left out are written to the
// shallow file (SPEC §2.7), and fsck accepts a link to an absent object
// only when the file lists it. Reads keep the same rule. The repository's
// object store (Repo.Objects) marks a miss of an oid the shallow file
// lists: its error wraps ErrBeyondShallow as well as objects.ErrNotFound.
// Any other miss of a linked object (an event a stored run lists, a tip,
// a parent, a blob) is damage: Absent turns it into a *MissingError, which
// names the object and says so, never into "beyond the shallow boundary".

// ErrObjectMissing means an object that something stored links to is not
// stored, and the repository's shallow boundary does not account for it:
// the repository is damaged. The error is a *MissingError naming the
// object.
var ErrObjectMissing = errors.New("the repository is damaged: a linked object is missing")

// MissingError reports linked object ID, which is not stored and not on
// the shallow boundary. Err is the read's own error (objects.ErrNotFound,
// naming any damaged storage pack that may hold the object). It wraps
// ErrObjectMissing only, not objects.ErrNotFound: callers that treat
// absence as expected must not take damage for it.
type MissingError struct {
	ID  objects.OID
	Err error
}

// Error names the object, says the repository is damaged and what checks
// it; a read error saying more than "not found" (a damaged storage pack)
// is kept.
func (e *MissingError) Error() string {
	msg := fmt.Sprintf("object %s is missing: not stored and not on the shallow boundary, so the repository is damaged (tine fsck reports the damage)", e.ID)
	if e.Err == nil {
		return msg
	}
	// The read's "object <id>: object not found" says nothing new.
	more := strings.TrimPrefix(e.Err.Error(), objects.NotFound(e.ID).Error())
	if more = strings.TrimLeft(more, "; "); more != "" {
		msg += ": " + more
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrObjectMissing) hold.
func (e *MissingError) Unwrap() error { return ErrObjectMissing }

// Absent explains err, the error of a read of linked object id through a
// repository's store: nil when the read found id on the shallow boundary
// (absent by design: the caller shows it as not stored here), a
// *MissingError when it did not find id otherwise (damage), and err itself
// for any other failure (a corrupt object, a cancelled context).
func Absent(id objects.OID, err error) error {
	switch {
	case errors.Is(err, ErrBeyondShallow):
		return nil
	case errors.Is(err, objects.ErrNotFound):
		return &MissingError{ID: id, Err: err}
	}
	return err
}
