package remotes

import (
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// DefaultRemote is the remote fetch, push and pull use when none is named.
const DefaultRemote = "origin"

// FetchOptions configures Fetch.
type FetchOptions struct {
	// Remote is a configured name or a URL; "" means DefaultRemote.
	Remote string
	// Refs are the remote refs to fetch ("main" means heads/main); none
	// means every ref except the remote's own remotes/*.
	Refs []string
	// Depth limits the fetch to Depth hops into events (remote.NoDepth:
	// everything): the shallow boundary is written for what is left out.
	Depth int
	// Deepen, when positive, extends the existing shallow boundary by
	// that many event generations instead of fetching refs anew.
	Deepen int
	Env
}

// RefMove is one ref a fetch, push or pull considered.
type RefMove struct {
	// Ref is the ref's name on the remote.
	Ref string `json:"ref"`
	// Local is the local ref that moved: a tracking ref for fetch and
	// push, the local ref for pull and clone.
	Local string `json:"local,omitempty"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
	// Status is new, updated, up-to-date, created, fast-forward,
	// conflict, refused or skipped.
	Status string `json:"status"`
	// Reason says why a ref was skipped, refused or conflicted.
	Reason string `json:"reason,omitempty"`
}

// FetchResult is the receipt of a fetch.
type FetchResult struct {
	Remote string `json:"remote"`
	URL    string `json:"url"`
	// Objects counts the objects received and stored.
	Objects int `json:"objects_received"`
	// Bytes counts the object bytes received.
	Bytes int64 `json:"bytes"`
	// Refs are the remote refs fetched and what moved locally.
	Refs []RefMove `json:"refs"`
	// Boundary counts the oids added to the shallow file; Shallow is the
	// file's size afterwards (0: the repository is complete).
	Boundary int `json:"boundary_added"`
	Shallow  int `json:"shallow"`
	// AssociationsOmitted counts runs whose associations the remote left
	// out (OpenTine servers under their limits).
	AssociationsOmitted int `json:"associations_omitted"`
}

// Fetch brings the remote's refs (or opt.Refs) with their link closure and
// associations into r, then moves the tracking refs
// remotes/<remote>/... to the fetched values, each by compare-and-swap.
// Annotation refs (annotations/<run digest>) move locally only by fast
// forward along their previous_id chain. A fetch from a bare URL moves no
// ref.
func Fetch(ctx context.Context, r *plumbing.Repo, opt FetchOptions) (*FetchResult, error) {
	if opt.Remote == "" {
		opt.Remote = DefaultRemote
	}
	c, err := Connect(ctx, r, opt.Remote, opt.Env)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return fetchWith(ctx, r, c, opt)
}

// fetchWith is Fetch over an open connection.
func fetchWith(ctx context.Context, r *plumbing.Repo, c *Connection, opt FetchOptions) (*FetchResult, error) {
	res := &FetchResult{Remote: c.Name, URL: c.URL, Refs: []RefMove{}}
	if !c.Description.Exists {
		return nil, fmt.Errorf("remote %s is empty: nothing to fetch", c.label())
	}
	listed, err := c.ListRefs(ctx)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", c.label(), err)
	}
	selected, err := selectRefs(listed, opt.Refs, c.label())
	if err != nil {
		return nil, err
	}
	req := remote.FetchRequest{Depth: opt.Depth}
	if opt.Deepen > 0 {
		if req.Wants, err = Frontier(ctx, r); err != nil {
			return nil, err
		}
		req.Depth = opt.Deepen
	} else {
		seen := map[objects.OID]bool{}
		for _, ref := range selected {
			if !seen[ref.ID] {
				seen[ref.ID] = true
				req.Wants = append(req.Wants, ref.ID)
			}
		}
	}
	if _, probes := c.Transport.(remote.Prober); !probes && len(req.Wants) > 0 {
		if req.Haves, req.HaveRoots, err = haves(ctx, r, c.Name); err != nil {
			return nil, err
		}
	}
	var recent objects.Getter = noObjects{}
	if len(req.Wants) > 0 {
		sink, err := receive(ctx, r, c, req, res)
		if err != nil {
			return nil, err
		}
		recent = sink
	}
	if err := moveTracking(ctx, r, c.Name, selected, res); err != nil {
		return res, err
	}
	shallow, err := r.Refs().ReadShallow()
	if err != nil {
		return res, err
	}
	res.Shallow = len(shallow)
	// Derived; the next reader refreshes it. The sink still holds what it
	// stored, so the update does not read the fetched objects back.
	_, _ = plumbing.OpenIndexReading(r, recent).Update(ctx)
	return res, nil
}

// maxHaves bounds the haves a fetch sends (OpenTine's server refuses more
// than 10,000).
const maxHaves = objects.MaxPackObjects

// haves lists what r holds of the remote's history for a transport that
// must tell the server (HTTP subtracts the ids it is sent, literally): the
// link closure of this remote's tracking refs, at most maxHaves ids,
// newest refs' runs first in walk order; and, when r has no shallow
// boundary (so it holds each tracking ref's whole closure), those refs'
// values and the associations held of their runs as closure roots for a
// server that expands them (at most maxHaves).
func haves(ctx context.Context, r *plumbing.Repo, remoteName string) (ids, roots []objects.OID, err error) {
	if remoteName == "" {
		return nil, nil, nil
	}
	err = r.Refs().List(ctx, "remotes/"+remoteName+"/", func(_ string, id objects.OID) error {
		roots = append(roots, id)
		return nil
	})
	if err != nil || len(roots) == 0 {
		return nil, nil, err
	}
	src, err := plumbing.RepoTransferSource(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: roots, Depth: plumbing.NoDepth})
	if err != nil {
		return nil, nil, fmt.Errorf("what this repository holds of %s: %w", remoteName, err)
	}
	ids = set.IDs
	if len(ids) > maxHaves {
		ids = ids[len(ids)-maxHaves:] // the runs and their newest events come last
	}
	shallow, err := r.Refs().ReadShallow()
	if err != nil {
		return nil, nil, err
	}
	if len(shallow) > 0 || len(set.Boundary) > 0 {
		return ids, nil, nil
	}
	// The associations held are roots too (their closures are held), so
	// the server sends only the ones this repository lacks.
	for _, id := range set.IDs {
		if len(roots) == maxHaves {
			break
		}
		if id.Type == objects.TypeAttestation || id.Type == objects.TypeAnnotation {
			roots = append(roots, id)
		}
	}
	if len(roots) > maxHaves {
		roots = roots[:maxHaves]
	}
	return ids, roots, nil
}

// receive runs one transport fetch into r.
func receive(ctx context.Context, r *plumbing.Repo, c *Connection, req remote.FetchRequest, res *FetchResult) (*remote.RepoSink, error) {
	sink, err := remote.NewRepoSink(r)
	if err != nil {
		return nil, err
	}
	fr, err := c.Fetch(ctx, req, sink)
	if err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", c.label(), err)
	}
	if err := sink.Finish(ctx); err != nil {
		return nil, fmt.Errorf("fetch from %s: update the shallow file: %w", c.label(), err)
	}
	res.Objects += sink.Installed
	res.Bytes += fr.Bytes
	res.Boundary += sink.Boundary
	res.AssociationsOmitted += fr.AssociationsOmitted
	return sink, nil
}

// noObjects is an empty objects.Getter.
type noObjects struct{}

// Get reports every id absent.
func (noObjects) Get(_ context.Context, id objects.OID) (*objects.Object, error) {
	return nil, objects.NotFound(id)
}

// selectRefs picks the listed refs names asks for (all but remotes/* when
// none), in listing order.
func selectRefs(listed []remote.Ref, names []string, label string) ([]remote.Ref, error) {
	if len(names) == 0 {
		var out []remote.Ref
		for _, ref := range listed {
			if !strings.HasPrefix(ref.Name, "remotes/") {
				out = append(out, ref)
			}
		}
		return out, nil
	}
	byName := make(map[string]remote.Ref, len(listed))
	for _, ref := range listed {
		byName[ref.Name] = ref
	}
	var out []remote.Ref
	for _, n := range names {
		full, err := LocalRef(n)
		if err != nil {
			return nil, err
		}
		ref, ok := byName[full]
		if !ok {
			return nil, fmt.Errorf("remote ref %s not found on %s (tine remote show %s lists its refs): %w", full, label, label, remote.ErrNotFound)
		}
		out = append(out, ref)
	}
	return out, nil
}

// moveTracking sets the tracking ref of each fetched ref whose target is
// now stored (a depth-limited fetch that left a target out moves none),
// all in one ref transaction, and fast-forwards annotation refs.
func moveTracking(ctx context.Context, r *plumbing.Repo, remoteName string, selected []remote.Ref, res *FetchResult) error {
	tx := r.Refs().NewTransaction("tine fetch " + remoteName)
	changed := 0
	for _, ref := range selected {
		mv := RefMove{Ref: ref.Name, New: ref.ID.String()}
		stored, err := r.Objects().Has(ctx, ref.ID)
		if err != nil {
			return err
		}
		switch {
		case !stored:
			mv.Status, mv.Reason = "skipped", "its target was not fetched"
		case remoteName == "":
			mv.Status = "fetched"
		case strings.HasPrefix(ref.Name, "annotations/"):
			if err := fastForwardAnnotation(ctx, r, ref, &mv); err != nil {
				return err
			}
		default:
			mv.Local = TrackingRef(remoteName, ref.Name)
			cur, err := readRef(ctx, r, mv.Local)
			if err != nil {
				return err
			}
			mv.Status = "new"
			if !cur.IsZero() {
				mv.Old, mv.Status = cur.String(), "updated"
			}
			if cur == ref.ID {
				mv.Old, mv.Status = "", "up-to-date"
				break
			}
			tx.Update(mv.Local, ref.ID, refs.ExpectValue(cur))
			changed++
		}
		res.Refs = append(res.Refs, mv)
	}
	if changed == 0 {
		return nil
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("move tracking refs of %s: %w", remoteName, err)
	}
	return nil
}

// maxChain bounds the previous_id walk of an annotation fast-forward.
const maxChain = 10000

// fastForwardAnnotation moves the local annotations/<x> ref to the
// remote's value when that value's previous_id chain reaches the local
// one (or the local ref is absent); a diverged chain is left alone and
// reported, never merged.
func fastForwardAnnotation(ctx context.Context, r *plumbing.Repo, ref remote.Ref, mv *RefMove) error {
	mv.Local = ref.Name
	cur, err := readRef(ctx, r, ref.Name)
	if err != nil {
		return err
	}
	if cur == ref.ID {
		mv.Status = "up-to-date"
		return nil
	}
	if !cur.IsZero() {
		mv.Old = cur.String()
		if !chainReaches(ctx, r, ref.ID, cur) {
			mv.Status, mv.Reason = "skipped", "the local annotation chain has notes the remote's lacks"
			return nil
		}
	}
	if err := r.Refs().Update(ctx, ref.Name, ref.ID, cur, "tine fetch"); err != nil {
		return fmt.Errorf("fast-forward %s: %w", ref.Name, err)
	}
	mv.Status = "fast-forward"
	return nil
}

// chainReaches reports whether the annotation chain from head reaches old
// along previous_id (within maxChain steps, every link read from r).
func chainReaches(ctx context.Context, r *plumbing.Repo, head, old objects.OID) bool {
	id := head
	for range maxChain {
		o, err := r.Objects().Get(ctx, id)
		if err != nil {
			return false
		}
		prev, ok := o.Value.Get("previous_id")
		if !ok || prev.Kind != objects.KindString {
			return false
		}
		if id, err = objects.ParseOIDFor(r.Algo(), prev.Str); err != nil {
			return false
		}
		if id == old {
			return true
		}
	}
	return false
}
