package remotes

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// lostEvents counts the events of run old, the remote's value of ref
// name as last fetched, that run local does not list: a push of local
// over old with any would take them off the remote's ref (not a
// fast-forward, git's non-fast-forward push). Only the refs a run grows
// under, heads/* and experiments/*, are held to it: a promotion or a tag
// names a run and may name another (promotions/* by the remote's release
// policy). 0 for any other ref, when either value is not a run, and when
// old is absent.
func lostEvents(ctx context.Context, r *plumbing.Repo, name string, old, local objects.OID) (int, error) {
	if ns := refs.NamespaceOf(name); ns != refs.NamespaceHeads && ns != refs.NamespaceExperiments {
		return 0, nil
	}
	if old.IsZero() || old.Type != objects.TypeRun || local.Type != objects.TypeRun {
		return 0, nil
	}
	_, missing, err := onlyEvents(ctx, r, local, old)
	if err != nil {
		return 0, fmt.Errorf("compare with the run last fetched, %s: %w", old, err)
	}
	return missing, nil
}

// notFastForward is the receipt entry and the advice of a run ref a push
// refused to move because the remote's run, as last fetched (old), has
// lost events the local run lacks.
func notFastForward(c *Connection, name string, old, local objects.OID, lost int) (RefMove, string) {
	reason := fmt.Sprintf("not a fast-forward: the remote run has %s this one lacks", events(lost))
	mv := RefMove{Ref: name, Old: old.String(), New: local.String(), Status: "refused", Reason: reason}
	advice := fmt.Sprintf("%s: %s; nothing was overwritten: take them with tine pull %s %s (or compare with tine diff %s %s), or push again with --expected-old %s to replace the remote run",
		name, reason, c.label(), name, TrackingRef(c.Name, name), name, old)
	if c.Name == "" {
		advice = fmt.Sprintf("%s: %s; nothing was overwritten: push again with --expected-old %s to replace the remote run", name, reason, old)
	}
	return mv, advice
}
