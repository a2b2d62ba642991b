package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// lockedRetries and lockedBackoff bound how long a ref update waits for a
// ref guard held by another process on the same repository.
const (
	lockedRetries = 50
	lockedBackoff = 20 * time.Millisecond
)

// getRefs lists every ref of the tenant (spec §5.2). Each target must
// exist (else 500) and satisfy its namespace's type rule.
func (s *Server) getRefs(c *call) *httpError {
	out := map[string]string{}
	r, err := s.repo(c.tenant, false)
	if err != nil {
		return internal(err.Error())
	}
	if r != nil {
		ctx := c.r.Context()
		err := r.Refs().List(ctx, "", func(name string, id objects.OID) error {
			o, err := r.Objects().Get(ctx, id)
			if err != nil {
				return fmt.Errorf("ref %s: target %s: %w", name, id, err)
			}
			if err := refs.CheckTarget(name, o); err != nil {
				return err
			}
			out[name] = id.String()
			return nil
		})
		if err != nil {
			return internal(err.Error())
		}
	}
	writeJSON(c.w, http.StatusOK, map[string]any{"refs": out})
	return nil
}

// putRef is the compare-and-swap of spec §5.3, in the reference order:
// name (400), extra permission (403), oids (404 for a missing new, 400 for
// a bad one), new stored (404), type rule (400), then tine's own check
// that everything new reaches is stored or held by the tenant's refs
// (404, checkClosure; skipped when the ref does not hold expected_old,
// since it will not move), ref bounds (400), CAS (200 or 409
// {"updated":false}).
func (s *Server) putRef(c *call) *httpError {
	name, err := refs.NormalizeName(strings.TrimPrefix(c.resource, "refs/"))
	if err != nil {
		return invalid(err.Error())
	}
	ns := refs.NamespaceOf(name)
	body, herr := readObject(c.r, s.cfg.MaxBodyBytes, "expected_old", "new")
	if herr != nil {
		return herr
	}
	if ns == refs.NamespacePromotions {
		c.action = actPromote
		if !c.id.allows(actPromote, c.tenant, s.cfg.WriterPromotes) {
			return forbidden(wire.RefusalRole, c.id.roleText()+" may not move promotions/* (an admin token may; a writer token only where the server runs with --writer-promotes)", "promote "+name)
		}
	}
	if ns == refs.NamespaceTags && !isNull(body["expected_old"]) {
		c.action = actRetag
		if !c.id.allows(actRetag, c.tenant, s.cfg.WriterPromotes) {
			return forbidden(wire.RefusalRole, c.id.roleText()+" may not move an existing tag (an admin token may; a writer token only where the server runs with --writer-promotes)", "retag "+name)
		}
	}
	rawNew, ok := body["new"]
	if !ok {
		return notFound("no new value")
	}
	r, err := s.repo(c.tenant, false)
	if err != nil {
		return internal(err.Error())
	}
	if r == nil {
		return notFound("tenant has no objects")
	}
	newID, herr := oneOID(rawNew, r.Algo(), "new")
	if herr != nil {
		return herr
	}
	var old objects.OID
	if !isNull(body["expected_old"]) {
		if old, herr = oneOID(body["expected_old"], r.Algo(), "expected_old"); herr != nil {
			return herr
		}
	}
	ctx := c.r.Context()
	target, err := r.Objects().Get(ctx, newID)
	if errors.Is(err, objects.ErrNotFound) {
		return notFound(fmt.Sprintf("%s is not stored", newID))
	}
	if err != nil {
		return internal(err.Error())
	}
	if err := refs.CheckTarget(name, target); err != nil {
		return invalid(err.Error())
	}
	// The writers' lock before the walk, not at the ref's move: a gc
	// pruning in between (it holds the lock exclusive) could delete
	// history the walk found stored, and the ref would then name it.
	if err := r.LockWriters(ctx); err != nil {
		return internal(fmt.Sprintf("ref %s: %v", name, err))
	}
	// A ref that does not hold expected_old will not move: no walk (a
	// stale or absent expected_old on a long history would cost the whole
	// walk for a 409). The answer is the swap's, at this read. A read
	// that fails otherwise (a name clash, a damaged ref file) is left to
	// the swap to report.
	stale := false
	switch cur, err := r.Refs().Read(ctx, name); {
	case err == nil:
		stale = cur != old
	case errors.Is(err, refs.ErrNotFound):
		stale = !old.IsZero()
	}
	if !stale {
		if herr := s.checkClosure(ctx, c.tenant, name, r, old, target); herr != nil {
			return herr
		}
	}
	if refCheckedHook != nil {
		refCheckedHook(c.tenant)
	}
	err = s.moveRef(ctx, c, r, remote.RefUpdate{Name: name, Old: old, New: newID}, stale)
	var refused *httpError
	if errors.As(err, &refused) {
		return refused
	}
	switch {
	case err == nil:
		// Before the reply, so the push that moved the ref pays for it.
		s.updateCatalog(ctx, c.tenant, r)
		writeJSON(c.w, http.StatusOK, map[string]bool{"updated": true})
		return nil
	case errors.Is(err, refs.ErrStale):
		writeJSON(c.w, http.StatusConflict, map[string]bool{"updated": false})
		return nil
	case errors.Is(err, refs.ErrLocked):
		return &httpError{status: http.StatusServiceUnavailable, text: textBusy, detail: err.Error()}
	case errors.Is(err, refs.ErrNameClash):
		return invalid(err.Error())
	}
	return internal(err.Error())
}

// moveRef applies u under the tenant's ref lock: the ref bounds and the
// guard (a refusal is returned as its *httpError), then the
// compare-and-swap, retried while the ref is locked by another process,
// whose outcome it returns. The lock is released before the caller
// updates the catalog, so other ref updates do not wait for that.
func (s *Server) moveRef(ctx context.Context, c *call, r *plumbing.Repo, u remote.RefUpdate, stale bool) error {
	mu := s.tenantLock("refs", c.tenant)
	mu.Lock()
	defer mu.Unlock()
	if herr := checkRefBounds(ctx, r, u.Name, len(u.New.String())); herr != nil {
		return herr
	}
	if herr := s.guard(ctx, r, u); herr != nil {
		return herr
	}
	if stale { // found so before the history walk, which was skipped
		return fmt.Errorf("ref %s: %w", u.Name, refs.ErrStale)
	}
	actor := "tine serve: " + c.id.subject
	for try := 0; ; try++ {
		err := r.Refs().Update(ctx, u.Name, u.New, u.Old, actor)
		if !errors.Is(err, refs.ErrLocked) || try == lockedRetries {
			return err
		}
		time.Sleep(lockedBackoff)
	}
}

// guard asks the Guard about u: every promotions/* update needs one (the
// release policy lives on this side), other namespaces only when a guard
// is configured. A refusal is 403 for wire.RefusalPolicy, its message the
// guard's public words (remote.GuardRefusal), never its whole error,
// which may name the server's files.
func (s *Server) guard(ctx context.Context, r *plumbing.Repo, u remote.RefUpdate) *httpError {
	if s.cfg.Guard == nil {
		if refs.NamespaceOf(u.Name) == refs.NamespacePromotions {
			return forbidden(wire.RefusalPolicy, "this server checks no release policy, so promotions/* do not move on it", u.Name+": this server has no release-policy check")
		}
		return nil
	}
	if err := s.cfg.Guard.CheckRef(ctx, r, u); err != nil {
		if !errors.Is(err, remote.ErrRefused) {
			return internal(err.Error())
		}
		msg := "the server's ref guard refused " + u.Name + " -> " + u.New.String()
		var gr *remote.GuardRefusal
		if errors.As(err, &gr) && gr.Public != "" {
			msg = gr.Public
		}
		return forbidden(wire.RefusalPolicy, msg, err.Error())
	}
	return nil
}

// checkRefBounds refuses a new ref past wire.MaxRefs refs or a listing past
// wire.MaxRefListingBytes (spec §5.2), so a listing always fits a client's
// 1 MiB reply cap; oidLen is the new value's length. Moving an existing ref
// is always allowed: OpenTine bounds new entries only.
func checkRefBounds(ctx context.Context, r *plumbing.Repo, name string, oidLen int) *httpError {
	n, size, exists := 0, 0, false
	err := r.Refs().List(ctx, "", func(ref string, id objects.OID) error {
		n++
		size += len(ref) + len(id.String()) + 6
		exists = exists || ref == name
		return nil
	})
	if err != nil {
		return internal(err.Error())
	}
	if exists {
		return nil
	}
	if n+1 > wire.MaxRefs {
		return invalid(fmt.Sprintf("tenant holds %d refs, at most %d", n, wire.MaxRefs))
	}
	if size+len(name)+oidLen+6 > wire.MaxRefListingBytes {
		return invalid(fmt.Sprintf("ref listing would exceed %d bytes", wire.MaxRefListingBytes))
	}
	return nil
}

// oneOID decodes one oid string of profile a.
func oneOID(v []byte, a objects.Algo, what string) (objects.OID, *httpError) {
	var s string
	if err := jsonString(v, &s); err != nil {
		return objects.OID{}, invalid(what + " is not a string")
	}
	id, err := objects.ParseOIDFor(a, s)
	if err != nil {
		return objects.OID{}, invalid(fmt.Sprintf("%s: %v", what, err))
	}
	return id, nil
}

// refCheckedHook, when set (tests), runs after a ref update's history
// check, before the ref moves.
var refCheckedHook func(tenant string)
