package runs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// The current run (git's HEAD for runs). `tine switch REF` names it in the
// repository's current-run file (plumbing.CurrentRunFile); record, import,
// log, show and loop run then default to it instead of DefaultRef.

// CurrentRef returns the current run's ref, or "" when none is set.
func CurrentRef(r *plumbing.Repo) (string, error) {
	c, err := r.ReadCurrentRun()
	if err != nil || c == nil {
		return "", err
	}
	return c.Ref, nil
}

// RefOrCurrent returns rev when it is not empty, else the current run's
// ref, else "" (the caller's own default, DefaultRef).
func RefOrCurrent(r *plumbing.Repo, rev string) (string, error) {
	if rev != "" {
		return rev, nil
	}
	return CurrentRef(r)
}

// SwitchOptions configures Switch.
type SwitchOptions struct {
	// Ref names the run to make current: an existing ref (short names
	// allowed), or with Create a new one under heads/ or experiments/ (a
	// name without a namespace goes under heads/).
	Ref string
	// Create makes Ref, which must not exist, pointing at Start's run; with
	// no Start at the current run's run, or, with no current run either,
	// nowhere yet: the first record or import creates it.
	Create bool
	// Start is a revision naming the run a created ref starts at.
	Start string
	// Actor is the reflog actor of a created ref.
	Actor string
}

// SwitchResult is what `tine switch` reports.
type SwitchResult struct {
	Ref string `json:"ref"`
	// Run is the run the ref names, "" for a ref not created yet.
	Run string `json:"run,omitempty"`
	// Created reports that Switch created the ref.
	Created bool `json:"created"`
	// Previous is the ref that was current before, "" for none.
	Previous string `json:"previous,omitempty"`
}

// Switch makes opt.Ref the current run, remembering the value it holds so
// Status can tell when something else moves it.
func Switch(ctx context.Context, r *plumbing.Repo, opt SwitchOptions) (*SwitchResult, error) {
	prev, err := CurrentRef(r)
	if err != nil && !errors.Is(err, plumbing.ErrBadCurrentRun) {
		return nil, err
	}
	if opt.Start != "" && !opt.Create {
		return nil, fmt.Errorf("a start revision needs --create: %w", plumbing.ErrBadInput)
	}
	res := &SwitchResult{Previous: prev}
	if opt.Create {
		err = createCurrent(ctx, r, opt, prev, res)
	} else {
		err = switchExisting(ctx, r, opt.Ref, res)
	}
	if err != nil {
		return nil, err
	}
	if err := r.WriteCurrentRun(plumbing.CurrentRun{Ref: res.Ref, Seen: res.Run}); err != nil {
		return nil, err
	}
	return res, nil
}

// switchExisting fills res for an existing ref naming a run.
func switchExisting(ctx context.Context, r *plumbing.Repo, name string, res *SwitchResult) error {
	ref, err := r.RefName(ctx, name)
	var amb *plumbing.AmbiguousError
	if err != nil && !errors.As(err, &amb) && !strings.ContainsAny(name, "/~@:") {
		// A bare word that no ref has: the namespace rule its spelling
		// breaks is beside the point.
		return fmt.Errorf("no ref is named %q (a short name names an existing ref); tine switch --create %s makes heads/%s: %w", name, name, name, plumbing.ErrUnknownRevision)
	}
	if err != nil {
		return err
	}
	id, err := r.Refs().Read(ctx, ref)
	if errors.Is(err, refs.ErrNotFound) {
		return fmt.Errorf("ref %s does not exist (tine switch --create %s makes it): %w", ref, name, plumbing.ErrUnknownRevision)
	}
	if err != nil {
		return fmt.Errorf("ref %s: %w", ref, err)
	}
	if id.Type != objects.TypeRun {
		return fmt.Errorf("ref %s names %s: %w", ref, id, ErrNotRun)
	}
	res.Ref, res.Run = ref, id.String()
	return nil
}

// createCurrent creates the ref of opt (see SwitchOptions.Create) and
// fills res.
func createCurrent(ctx context.Context, r *plumbing.Repo, opt SwitchOptions, prev string, res *SwitchResult) error {
	name := opt.Ref
	if !strings.Contains(name, "/") {
		name = "heads/" + name
	}
	ref, err := WritableRef(ctx, r, name)
	if err != nil {
		return err
	}
	if _, err := r.Refs().Read(ctx, ref); err == nil {
		return fmt.Errorf("%s: %w; tine switch %s makes it current", ref, ErrRefExists, ref)
	} else if !errors.Is(err, refs.ErrNotFound) {
		return fmt.Errorf("ref %s: %w", ref, err)
	}
	start := opt.Start
	if start == "" && prev != "" {
		if _, err := r.Refs().Read(ctx, prev); err == nil {
			start = prev
		}
	}
	res.Ref, res.Created = ref, true
	if start == "" {
		return nil
	}
	// A REV~N no stored run holds is stored here, as fork stores its run.
	run, _, err := resolveRunHead(ctx, r, r.Objects(), start)
	if err != nil {
		return err
	}
	actor := OrDefault(opt.Actor, DefaultActor)
	if run.Stored {
		if err := r.Refs().UpdateExpect(ctx, ref, run.ID, refs.ExpectAbsent, actor); err != nil {
			return fmt.Errorf("create %s at %s: %w", ref, run.ID, err)
		}
		_ = RefreshIndex(ctx, r) // derived data: see refreshIndex
	} else if err := Commit(ctx, r, ref, refs.ExpectAbsent, actor, []*objects.Object{run.Object}); err != nil {
		return err
	}
	res.Run = run.ID.String()
	return nil
}
