package remotes

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// lostEvents counts the events of run old, the remote's value of ref
// name as last fetched, that run local does not list (lost), and those
// local lists that old does not (extra): a push of local over old with
// any lost would take them off the remote's ref (not a fast-forward,
// git's non-fast-forward push). Only the refs a run grows under, heads/*
// and experiments/*, are held to it: a promotion or a tag names a run and
// may name another (promotions/* by the remote's release policy). Both 0
// for any other ref, when either value is not a run, and when old is
// absent.
func lostEvents(ctx context.Context, r *plumbing.Repo, name string, old, local objects.OID) (lost, extra int, err error) {
	if ns := refs.NamespaceOf(name); ns != refs.NamespaceHeads && ns != refs.NamespaceExperiments {
		return 0, 0, nil
	}
	if old.IsZero() || old.Type != objects.TypeRun || local.Type != objects.TypeRun {
		return 0, 0, nil
	}
	extra, lost, err = onlyEvents(ctx, r, local, old)
	if err != nil {
		return 0, 0, fmt.Errorf("compare with the run last fetched, %s: %w", old, err)
	}
	return lost, extra, nil
}

// notFastForward is the receipt entry and the advice of a run ref a push
// refused to move because the remote's run, as last fetched (old), has
// lost events the local run lacks; extra counts the local run's own. A
// local run with none is behind, and tine pull takes the rest; one with
// some diverged, and pull would refuse too. (Only a named remote gets
// here: a bare URL tracks nothing, so the compare-and-swap decides.)
func notFastForward(c *Connection, name string, old, local objects.OID, lost, extra int) (RefMove, string) {
	reason := fmt.Sprintf("not a fast-forward: the remote run has %s this one lacks", events(lost))
	mv := RefMove{Ref: name, Old: old.String(), New: local.String(), Status: "refused", Reason: reason}
	tracking := TrackingRef(c.Name, name)
	if extra == 0 {
		return mv, fmt.Sprintf("%s: %s; nothing was overwritten: take them with tine pull %s %s, or push again with --expected-old %s to replace the remote run",
			name, reason, c.label(), name, old)
	}
	return mv, fmt.Sprintf("%s: %s, and it has %s the remote run lacks; nothing was overwritten: compare with tine diff %s %s, keep both by forking the remote run (tine fork %s --from EVENT), or push again with --expected-old %s to replace the remote run",
		name, reason, events(extra), tracking, name, tracking, old)
}
