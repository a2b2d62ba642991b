package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// prefixMatches returns the stored objects whose hex digest starts with
// prefix. Only the one fan-out directory per type that can hold them is
// read, so the cost is bounded by that directory, not by the store.
func (r *Repo) prefixMatches(ctx context.Context, prefix string) ([]objects.OID, error) {
	var out []objects.OID
	for _, t := range objects.Types {
		dir := filepath.Join(r.root, "objects", string(t), prefix[:2])
		st, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory: %w", dir, ErrNotConfined)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if len(name) != 62 || !strings.HasPrefix(name, prefix[2:]) || !isHexPrefix(name) {
				continue
			}
			id, err := objects.ParseOIDFor(r.algo, string(t)+":"+string(r.algo)+":"+prefix[:2]+name)
			if err != nil {
				continue
			}
			out = append(out, id)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	// Objects in storage packs match too; one both loose and packed counts once.
	packed, err := r.packedPrefixMatches(ctx, prefix)
	if err != nil {
		return nil, err
	}
	seen := make(map[objects.OID]bool, len(out))
	for _, id := range out {
		seen[id] = true
	}
	for _, id := range packed {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out, nil
}

// resolveReflog resolves base@{n}: n = 0 is the ref's current value, and
// n > 0 the value recorded n updates ago (row n of the newest-first reflog).
// A row naming an object that is not stored is ErrBeyondShallow when the
// shallow file lists the object (with explain: see resolveRevision), else
// ErrUnknownRevision.
func (r *Repo) resolveReflog(ctx context.Context, rev, base string, n int, explain bool) (objects.OID, string, error) {
	names, legal, err := r.refMatches(ctx, base)
	if err != nil {
		return objects.OID{}, "", err
	}
	switch {
	case !legal:
		return objects.OID{}, "", fmt.Errorf("revision %q: %q is not a ref name: %w", rev, base, ErrBadRevision)
	case len(names) == 0:
		return objects.OID{}, "", fmt.Errorf("revision %q: ref %q: %w", rev, base, ErrUnknownRevision)
	case len(names) > 1:
		return objects.OID{}, "", &AmbiguousError{Revision: rev, Candidates: names}
	}
	name := names[0]
	if n == 0 {
		id, err := r.refs.Read(ctx, name)
		if err != nil {
			return objects.OID{}, "", fmt.Errorf("revision %q: %w", rev, err)
		}
		return id, name, nil
	}
	rows, err := r.reflogNewestFirst(name)
	if err != nil {
		return objects.OID{}, "", fmt.Errorf("revision %q: %w", rev, err)
	}
	if n >= len(rows) {
		return objects.OID{}, "", fmt.Errorf("revision %q: the reflog of %s has only %d entries: %w", rev, name, len(rows), ErrUnknownRevision)
	}
	id := rows[n].New
	if id.IsZero() {
		return objects.OID{}, "", fmt.Errorf("revision %q: %s was deleted at that point: %w", rev, name, ErrUnknownRevision)
	}
	if ok, err := r.objs.Has(ctx, id); err != nil {
		return objects.OID{}, "", err
	} else if !ok {
		return objects.OID{}, "", r.reflogMissError(rev, id, explain)
	}
	return id, name, nil
}

// reflogMissError is the error of revision rev, a reflog row naming id,
// which is not stored. A shallow fetch left id out when the shallow file
// lists it: the error then says so and what brings it, as the other
// revisions naming such an object do (shallowPrefixError). Otherwise id
// was stored once and is gone, and rev is unknown; a shallow file that
// cannot be read is added to that error. Without explain the file is not
// read (cat-object --batch: both are missing).
func (r *Repo) reflogMissError(rev string, id objects.OID, explain bool) error {
	unknown := fmt.Errorf("revision %q: %s is no longer stored: %w", rev, id, ErrUnknownRevision)
	if !explain {
		return unknown
	}
	on, err := r.onShallowBoundary(id)
	switch {
	case err != nil:
		return errors.Join(unknown, err)
	case on:
		return fmt.Errorf("revision %q: object %s is not stored: %w", rev, id, ErrBeyondShallow)
	}
	return unknown
}

// reflogNewestFirst returns a ref's reflog rows, newest first.
func (r *Repo) reflogNewestFirst(name string) ([]refs.ReflogEntry, error) {
	rows, err := r.refs.Reflog(name)
	if err != nil {
		return nil, err
	}
	out := make([]refs.ReflogEntry, len(rows))
	for i, e := range rows {
		out[len(rows)-1-i] = e
	}
	return out, nil
}

// RefName resolves the name of a ref a verb reads or moves: a ref name
// with or without "refs/" is taken as it is (whether or not the ref
// exists), and a short name (main) naming exactly one existing ref under
// the namespaces ResolveRevision tries is that ref. Anything else is the
// ref-name error of the name as given (a short name matching several refs
// is an *AmbiguousError, a legal short name without "/" matching none a
// *NoRefError).
func (r *Repo) RefName(ctx context.Context, s string) (string, error) {
	name, err := refs.NormalizeName(s)
	if err != nil && (strings.Contains(s, "~") || strings.Contains(s, "@{")) {
		// The namespace or character rule NormalizeName names would
		// send the user looking at the wrong thing: they wrote a past
		// value where a ref itself is wanted.
		return "", &PastValueError{name: s, err: err}
	}
	if err == nil || strings.ContainsAny(s, "~@{:") {
		return name, err
	}
	names, legal, merr := r.refMatches(ctx, s)
	switch {
	case merr != nil:
		return "", merr
	case len(names) == 1:
		return names[0], nil
	case len(names) > 1:
		return "", &AmbiguousError{Revision: s, Candidates: names}
	case legal && !strings.Contains(s, "/"):
		// A bare word no ref has: the namespace it lacks is beside
		// the point. A name with a "/" keeps the rule it breaks, as its
		// first component may be a mistyped namespace.
		return "", noRef(s, err)
	}
	return "", err
}

// PastValueError is RefName's error for a REV~N or REF@{n} given where a
// ref itself is wanted.
// It says so instead of the ref-name rule the spelling breaks (a missing
// namespace for main~1), and unwraps to that rule's error for callers
// that test for it.
type PastValueError struct {
	name string
	err  error
}

// Error names the spelling and what to give instead.
func (e *PastValueError) Error() string {
	return fmt.Sprintf("ref %q: ~N and @{n} name past values of a ref, not a ref to read or move; give the ref itself (heads/main or main)", e.name)
}

// Unwrap returns the ref-name rule's error.
func (e *PastValueError) Unwrap() error { return e.err }
