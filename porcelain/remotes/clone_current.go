package remotes

import (
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// CloneCurrent says which run record, import, log and show act on in a new
// clone when given no ref, and which rule chose it.
type CloneCurrent struct {
	// Ref is the current run's ref: the cloned --ref; else the remote's
	// own current run when the remote can name one (a path remote whose
	// repository has one: tine switch there, git's HEAD) and it was
	// cloned; else heads/main when it was cloned; else the first cloned
	// heads/* ref by name; else heads/main, not cloned: no current run.
	// OpenTine's HTTP protocol and the S3 layout name no default run, so
	// over them the choice starts at heads/main.
	Ref string `json:"ref"`
	// From names the rule that chose Ref: "ref" (--ref), "remote" (the
	// remote's current run), "default" (heads/main), "first" (the first
	// heads/* ref) or "none" (no run was cloned to choose).
	From string `json:"from"`
	// Switched reports that Ref was written as the current run, as tine
	// switch REF writes it (every rule but "default" and "none": a
	// repository without a current run uses heads/main anyway).
	Switched bool `json:"switched"`
	// Cloned reports that Ref exists in the clone.
	Cloned bool `json:"cloned"`
	// Note says why the remote's current run was not used, when it names
	// one that could not be (it has no run yet, names no run, was not
	// fetched, is outside heads/ and experiments/, or the remote's
	// current-run file is damaged).
	Note string `json:"note,omitempty"`
}

// Rules of CloneCurrent.From.
const (
	fromRef     = "ref"
	fromRemote  = "remote"
	fromDefault = "default"
	fromFirst   = "first"
	fromNone    = "none"
)

// remoteCurrent is what the remote says of its current run: Ref, or Note
// when it could not be read.
type remoteCurrent struct {
	Ref, Note string
}

// readRemoteCurrent asks a transport that can tell (remote.CurrentRunReader)
// which run its repository has current. A file that cannot be read or is
// damaged is not used, and the note says so: the clone chooses as if the
// remote named none.
func readRemoteCurrent(ctx context.Context, tr remote.Transport) remoteCurrent {
	cr, ok := tr.(remote.CurrentRunReader)
	if !ok {
		return remoteCurrent{}
	}
	ref, err := cr.CurrentRun(ctx)
	if err != nil {
		return remoteCurrent{Note: fmt.Sprintf("the remote's current run was not used (there: %v)", err)}
	}
	return remoteCurrent{Ref: ref}
}

// createsLocal reports whether a clone creates a local ref for the fetched
// remote ref mv: every heads/* ref, the --ref, and the remote's current
// run when it names a run in a namespace runs are recorded under (a run in
// experiments/ becomes local too, as git creates the branch its remote's
// HEAD names).
func createsLocal(opt CloneOptions, want remoteCurrent, mv RefMove, id objects.OID) bool {
	return opt.Ref != "" || strings.HasPrefix(mv.Ref, "heads/") || (mv.Ref == want.Ref && id.Type == objects.TypeRun && recordedUnder(want.Ref))
}

// recordedUnder reports whether ref is in a namespace runs are recorded
// under (heads/, experiments/: runs.WritableRef), the only ones a clone
// takes the remote's current run from. The remote's file may name any
// ref, but a promotion moves only through tine promote, and nothing is
// recorded on a tags/ ref: neither is made local behind the user's back.
func recordedUnder(ref string) bool {
	ns := refs.NamespaceOf(ref)
	return ns == refs.NamespaceHeads || ns == refs.NamespaceExperiments
}

// setCloneCurrent chooses the clone's current run by the rules of
// CloneCurrent.Ref among the local refs created, writes it as `tine switch`
// does, and reports it.
func setCloneCurrent(ctx context.Context, r *plumbing.Repo, opt CloneOptions, want remoteCurrent, fetched, created []RefMove) (CloneCurrent, error) {
	runRefs := map[string]bool{}
	first := ""
	for _, mv := range created {
		id, err := objects.ParseOIDFor(r.Algo(), mv.New)
		if err != nil {
			return CloneCurrent{}, err
		}
		if id.Type != objects.TypeRun {
			continue
		}
		runRefs[mv.Ref] = true
		if strings.HasPrefix(mv.Ref, "heads/") && (first == "" || mv.Ref < first) {
			first = mv.Ref
		}
	}
	cur := CloneCurrent{Ref: runs.DefaultRef, From: fromNone}
	switch {
	case opt.Ref != "" && len(created) == 1 && runRefs[created[0].Ref]:
		cur.Ref, cur.From = created[0].Ref, fromRef
	case want.Ref != "" && runRefs[want.Ref]:
		cur.Ref, cur.From = want.Ref, fromRemote
	case runRefs[runs.DefaultRef]:
		cur.From = fromDefault
	case first != "":
		cur.Ref, cur.From = first, fromFirst
	}
	cur.Note = want.Note
	if want.Ref != "" && cur.From != fromRemote && opt.Ref == "" {
		cur.Note = fmt.Sprintf("the remote's current run %s was not used: %s", want.Ref, unusedReason(want.Ref, fetched))
	}
	for _, mv := range created {
		if mv.Ref == cur.Ref {
			cur.Cloned = true
		}
	}
	if cur.From == fromDefault || cur.From == fromNone {
		return cur, nil
	}
	res, err := runs.Switch(ctx, r, runs.SwitchOptions{Ref: cur.Ref})
	if err != nil {
		return cur, err
	}
	cur.Ref, cur.Switched = res.Ref, true
	return cur, nil
}

// unusedReason says why the remote's current run ref was not cloned as a
// run, from what the fetch reported of it.
func unusedReason(ref string, fetched []RefMove) string {
	if ns := refs.NamespaceOf(ref); ns != refs.NamespaceRemotes && !recordedUnder(ref) {
		return fmt.Sprintf("a clone takes a current run under heads/ or experiments/ only, where runs are recorded, not %s/", ns)
	}
	for _, mv := range fetched {
		if mv.Ref != ref {
			continue
		}
		if mv.Local == "" || mv.Status == "skipped" {
			return "it was not fetched"
		}
		return "it names no run"
	}
	if strings.HasPrefix(ref, "remotes/") {
		return "it is a tracking ref there, which a clone does not fetch"
	}
	return "the remote has no such ref (no run recorded on it yet)"
}
