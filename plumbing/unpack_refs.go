package plumbing

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// What unpack did with each ref a bundle carries (RefInstall.Status).
const (
	RefCreated     = "created"
	RefFastForward = "fast-forward"
	RefUpToDate    = "up-to-date"
	RefDiverged    = "diverged"
	RefSkipped     = "skipped"
	RefFailed      = "failed"
)

// maxBundleChain bounds the previous_id walk of an annotation
// fast-forward.
const maxBundleChain = 10000

// RefInstall is what unpack did with one ref of a bundle.
type RefInstall struct {
	Name string `json:"name"`
	// New is the bundle's value; Old the local value before, if any.
	New    string `json:"new"`
	Old    string `json:"old,omitempty"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// installBundleRefs moves each ref of list, one compare-and-swap each from
// the value read just before: an absent ref is created; a ref the bundle's
// value extends is fast-forwarded (a run whose events include every event
// of the local run; an annotation whose previous_id chain reaches the local
// one); an equal ref is left; any other local value is diverged and kept,
// never overwritten. promotions/ refs are skipped: a promotion moves only
// through tine promote, under the release policy. A ref that moved
// meanwhile fails its compare-and-swap and is reported failed.
func installBundleRefs(ctx context.Context, r *Repo, list []bundleRef) []RefInstall {
	out := make([]RefInstall, 0, len(list))
	for _, br := range list {
		ri := RefInstall{Name: br.name, New: br.id.String()}
		ri.Status, ri.Reason = installBundleRef(ctx, r, br, &ri)
		out = append(out, ri)
	}
	return out
}

// installBundleRef installs one ref and returns its status and reason.
func installBundleRef(ctx context.Context, r *Repo, br bundleRef, ri *RefInstall) (string, string) {
	if refs.NamespaceOf(br.name) == refs.NamespacePromotions {
		return RefSkipped, fmt.Sprintf("promotions move only through tine promote, under the release policy: tine promote %s %s", br.name[len("promotions/"):], br.id)
	}
	cur, err := r.Refs().Read(ctx, br.name)
	switch {
	case errors.Is(err, refs.ErrNotFound):
		if err := r.Refs().Create(ctx, br.name, br.id, "tine unpack"); err != nil {
			return RefFailed, oneLine(err)
		}
		return RefCreated, ""
	case err != nil:
		return RefFailed, oneLine(err)
	case cur == br.id:
		return RefUpToDate, ""
	}
	ri.Old = cur.String()
	ok, why, err := extends(ctx, r, cur, br.id)
	if err != nil {
		return RefFailed, oneLine(err)
	}
	if !ok {
		return RefDiverged, why + "; the local value is kept"
	}
	if err := r.Refs().Update(ctx, br.name, br.id, cur, "tine unpack"); err != nil {
		return RefFailed, oneLine(err)
	}
	return RefFastForward, ""
}

// extends reports whether value next continues value cur of a ref, and why
// not when it does not.
func extends(ctx context.Context, r *Repo, cur, next objects.OID) (bool, string, error) {
	switch {
	case cur.Type == objects.TypeRun && next.Type == objects.TypeRun:
		have, err := runEvents(ctx, r, cur)
		if err != nil {
			return false, "", err
		}
		theirs, err := runEvents(ctx, r, next)
		if err != nil {
			return false, "", err
		}
		in := make(map[string]bool, len(theirs))
		for _, e := range theirs {
			in[e] = true
		}
		n := 0
		for _, e := range have {
			if !in[e] {
				n++
			}
		}
		if n > 0 {
			return false, fmt.Sprintf("the local run has %d event(s) the bundle's run lacks", n), nil
		}
		return true, "", nil
	case cur.Type == objects.TypeAnnotation && next.Type == objects.TypeAnnotation:
		id := next
		for range maxBundleChain {
			o, err := r.Objects().Get(ctx, id)
			if err != nil {
				return false, "", err
			}
			prev, ok := o.Value.Get("previous_id")
			if !ok || prev.Kind != objects.KindString || prev.Str == "" {
				break
			}
			if id, err = objects.ParseOIDFor(r.Algo(), prev.Str); err != nil {
				break
			}
			if id == cur {
				return true, "", nil
			}
		}
		return false, "the local annotation chain has notes the bundle's lacks", nil
	}
	return false, "the bundle's value is not a continuation of the local one", nil
}

// runEvents returns the event oids (as strings) run id lists.
func runEvents(ctx context.Context, r *Repo, id objects.OID) ([]string, error) {
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ev, _ := o.Value.Get("events")
	out := make([]string, 0, len(ev.Array))
	for _, e := range ev.Array {
		out = append(out, e.Str)
	}
	return out, nil
}

// oneLine is err's message on one line.
func oneLine(err error) string {
	s := err.Error()
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
