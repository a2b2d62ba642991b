package plumbing

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// A revision naming an object the repository does not store is unknown,
// except when the shallow file lists the object: a shallow fetch left it
// out by design (SPEC §2.7), and the user, who copied its oid from a
// diff, a show or a log of this very repository, is told where it is and
// what brings it, as the verbs that read through it are.

// notStoredError is the error of a revision naming id, which is not
// stored: ErrBeyondShallow when the shallow file lists id, else
// ErrUnknownRevision. A shallow file that cannot be read is added to the
// error (the miss is then not explained).
func (r *Repo) notStoredError(id objects.OID) error {
	ok, err := r.onShallowBoundary(id)
	switch {
	case err != nil:
		return errors.Join(fmt.Errorf("object %s: %w", id, ErrUnknownRevision), err)
	case ok:
		return fmt.Errorf("object %s is not stored: %w", id, ErrBeyondShallow)
	}
	return fmt.Errorf("object %s: %w", id, ErrUnknownRevision)
}

// shallowPrefixError explains a hex prefix that matches no stored object
// and no ref: nil when it matches no oid of the shallow file either (the
// revision is unknown), else an error wrapping ErrBeyondShallow naming
// the oids it matches there (at most maxCandidates). A shallow file that
// cannot be read is added to the unknown revision.
func (r *Repo) shallowPrefixError(rev string) error {
	ids, err := r.readShallow()
	if err != nil {
		return errors.Join(fmt.Errorf("revision %q: %w", rev, ErrUnknownRevision), fmt.Errorf("shallow file: %w", err))
	}
	var hits []string
	for _, id := range ids {
		if strings.HasPrefix(hex.EncodeToString(id.Digest[:]), rev) {
			hits = append(hits, id.String())
		}
	}
	switch {
	case len(hits) == 0:
		return nil
	case len(hits) == 1:
		return fmt.Errorf("revision %q: object %s is not stored: %w", rev, hits[0], ErrBeyondShallow)
	}
	if len(hits) > maxCandidates {
		hits = append(hits[:maxCandidates], "...")
	}
	return fmt.Errorf("revision %q: objects %s are not stored: %w", rev, strings.Join(hits, ", "), ErrBeyondShallow)
}
