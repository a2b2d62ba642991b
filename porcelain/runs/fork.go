package runs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// shortHex is how many digest digits porcelain shows and uses in names.
const shortHex = 12

// Short returns the first 12 hex digits of id's digest, a prefix every
// revision argument accepts.
func Short(id objects.OID) string {
	if id.IsZero() {
		return ""
	}
	return id.Hex()[:shortHex]
}

// ForkOptions configures Fork.
type ForkOptions struct {
	// Source is a revision naming the run to fork (REF, oid, REF~N, ...).
	Source string
	// From names the fork event: an event oid or unique prefix, or a run
	// revision (REF, REF~N, ...) meaning that run's newest event.
	From string
	// Ref is the new ref; empty means experiments/<source-name>-<short event>.
	Ref string
	// Reason is recorded in forked_from.reason when not empty.
	Reason string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
}

// ForkResult is what `tine fork` reports.
type ForkResult struct {
	Ref       string `json:"ref"`
	Run       string `json:"run"`
	SourceRun string `json:"source_run"`
	SourceRef string `json:"source_ref,omitempty"`
	FromEvent string `json:"from_event"`
	Events    int    `json:"events"`
	Reason    string `json:"reason,omitempty"`
}

// Fork creates a run whose events are the ancestor closure of the fork
// event (parents and causal links, in the source's order; shared by oid, so
// nothing is copied) with forked_from {run, event, reason}, status running
// and a new created_at, on a new ref created by compare-and-swap: an
// existing ref is refused with ErrRefExists. The source's other payload
// fields are kept, except the v2-migration set and legacy_refs. It reads
// the closure's events once and nothing else of the source
// (forkClosure), and the write validates the new run against them without
// reading them again (plumbing.Repo.WriteFork).
func Fork(ctx context.Context, r *plumbing.Repo, opt ForkOptions) (*ForkResult, error) {
	src, srcRef, err := resolveRunHead(ctx, r, r.Objects(), opt.Source)
	if err != nil {
		return nil, err
	}
	evID, err := forkEvent(ctx, r, opt.From)
	if err != nil {
		return nil, err
	}
	events, closure, err := forkClosure(ctx, r.Objects(), src, evID)
	if err != nil {
		return nil, err
	}
	ref := opt.Ref
	if ref == "" {
		ref = "experiments/" + sourceName(srcRef, src.ID) + "-" + Short(evID)
	}
	if ref, err = WritableRef(ctx, r, ref); err != nil {
		return nil, err
	}
	// The compare-and-swap refuses a taken ref only after the run is
	// written; asking first keeps a refused fork (a default name already
	// used, say) from leaving an unreachable run behind.
	if _, err := r.Refs().Read(ctx, ref); err == nil {
		return nil, fmt.Errorf("%s: %w; name another with --ref", ref, ErrRefExists)
	}
	roots, tips := RootsTips(events)
	ff := []objects.Member{
		{Key: "event", Value: objects.String(evID.String())},
		{Key: "run", Value: objects.String(src.ID.String())},
	}
	if opt.Reason != "" {
		ff = append(ff, objects.Member{Key: "reason", Value: objects.String(opt.Reason)})
	}
	drop := map[string]bool{"legacy_refs": true}
	for k := range legacyFields {
		drop[k] = true
	}
	payload, _ := redactValue(derivePayload(src.Value, []objects.Member{
		{Key: "created_at", Value: UnixSeconds(Clock(opt.Now)())},
		{Key: "events", Value: OIDValues(eventOIDs(events))},
		{Key: "roots", Value: OIDValues(roots)},
		{Key: "tips", Value: OIDValues(tips)},
		{Key: "status", Value: objects.String(StatusRunning)},
		{Key: "forked_from", Value: objects.ObjectValue(ff...)},
	}, drop))
	run, err := objects.NewJSONObject(r.Algo(), objects.TypeRun, 1, payload)
	if err != nil {
		return nil, fmt.Errorf("build fork of %s: %w", src.ID, err)
	}
	if err := r.WriteFork(ctx, run, src.ID, closure); err != nil {
		return nil, err
	}
	actor := opt.Actor
	if actor == "" {
		actor = DefaultActor
	}
	if err := r.Refs().UpdateExpect(ctx, ref, run.ID, refs.ExpectAbsent, actor); err != nil {
		if errors.Is(err, refs.ErrStale) {
			return nil, fmt.Errorf("%s: %w; name another with --ref", ref, ErrRefExists)
		}
		return nil, fmt.Errorf("move %s to %s: %w", ref, run.ID, err)
	}
	_ = RefreshIndex(ctx, r) // derived data, as in Commit
	return &ForkResult{Ref: ref, Run: run.ID.String(), SourceRun: src.ID.String(), SourceRef: srcRef,
		FromEvent: evID.String(), Events: len(events), Reason: opt.Reason}, nil
}

// sourceName is the last component of the source ref, or run-<short> for a
// run named by oid.
func sourceName(ref string, id objects.OID) string {
	if ref != "" {
		return path.Base(ref)
	}
	return "run-" + Short(id)
}

// forkEvent resolves --from: an event revision (oid or unique prefix), or a
// run revision (REF, REF~N, ...) standing for that run's newest event.
func forkEvent(ctx context.Context, r *plumbing.Repo, from string) (objects.OID, error) {
	if !strings.ContainsRune(from, '~') {
		id, err := r.Resolve(ctx, from)
		if err != nil {
			return objects.OID{}, fmt.Errorf("--from %s: %w", from, err)
		}
		if id.Type == objects.TypeEvent {
			return id, nil
		}
		if id.Type != objects.TypeRun {
			return objects.OID{}, fmt.Errorf("--from %s names %s: %w", from, id, ErrNotEvent)
		}
	}
	// The run's newest event is the last of its list: no event is read.
	run, _, err := resolveRunHead(ctx, r, r.Objects(), from)
	if err != nil {
		return objects.OID{}, fmt.Errorf("--from %s: %w", from, err)
	}
	list, err := newEventList(run)
	if err != nil {
		return objects.OID{}, fmt.Errorf("--from %s: %w", from, err)
	}
	if list.Len() == 0 {
		return objects.OID{}, fmt.Errorf("--from %s: run %s has no events: %w", from, run.ID, ErrNotEvent)
	}
	id, err := list.At(list.Len() - 1)
	if err != nil {
		return objects.OID{}, fmt.Errorf("--from %s: %w", from, err)
	}
	return id, nil
}

// ShortString is Short of an oid spelling, or s unchanged when it is no oid.
func ShortString(s string) string {
	id, err := objects.ParseOID(s)
	if err != nil {
		return s
	}
	return Short(id)
}

// ShortList renders oids as space-separated 12-digit prefixes.
func ShortList(ids []objects.OID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = Short(id)
	}
	return strings.Join(s, " ")
}

// ValueText renders a JSON value for people: a string as itself, anything
// else as compact canonical JSON.
func ValueText(v objects.Value) string {
	if v.Kind == objects.KindString {
		return v.Str
	}
	b, err := objects.CanonV3(v)
	if err != nil {
		return "(unrenderable)"
	}
	return string(b)
}
