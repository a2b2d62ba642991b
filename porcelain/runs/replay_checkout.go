package runs

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// checkouts keeps the one temporary checkout the recorded commands of a
// rerun share while they ran in the same recorded state, so a command sees
// the files the commands before it made, as it did when recorded. A command
// recorded in another state gets a fresh checkout; the previous one is
// removed first, and close removes the last, whatever ended the rerun.
type checkouts struct {
	g   objects.Getter
	opt RerunOptions
	cur *checkout
}

// forEvent returns the checkout of e's recorded code state.
func (cs *checkouts) forEvent(ctx context.Context, e *Event) (*checkout, error) {
	id, ok := EventWorkspace(e)
	if !ok {
		return nil, fmt.Errorf("%w (recorded with --no-capture, outside a git work tree, or not by tine record)", ErrNoWorkspace)
	}
	if cs.cur != nil && cs.cur.manifest == id {
		return cs.cur, nil
	}
	if err := cs.close(); err != nil {
		return nil, err
	}
	o, err := cs.g.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("workspace manifest %s: %w", id, err)
	}
	if o.Type != objects.TypeBlob {
		return nil, fmt.Errorf("%w: %s is a %s, not a blob", ErrBadWorkspace, id, o.Type)
	}
	m, err := parseWorkspace(o)
	if err != nil {
		return nil, err
	}
	c, err := makeCheckout(ctx, id, m, cs.opt.Source, cs.opt.TempDir, cs.opt.Timeout)
	if err != nil {
		return nil, err
	}
	cs.cur = c
	return c, nil
}

// close removes the current checkout.
func (cs *checkouts) close() error {
	err := cs.cur.remove()
	cs.cur = nil
	if err != nil {
		return fmt.Errorf("removing a temporary checkout: %w", err)
	}
	return nil
}
