package runs

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// A semantic run diff (tine diff A B).
//
// Two runs are compared as event sets, since events are shared by oid:
//
//   - common events are in both runs (the shared history; for a fork, the
//     prefix up to the fork event). The common ancestor is the newest of
//     them in A's order: the last event both runs agree on.
//   - only_a and only_b are the divergent events, each in its run's order.
//   - the divergent events are aligned (diff_align.go) and each aligned
//     pair reports the fields that differ (diff_fields.go).
//   - totals (cost, duration, tokens, events) and the run score are
//     compared as B minus A, and the tool path (what each run called, in
//     order) is shown for both: whole, and as the steps both start with
//     and each one's steps after them (diff_toolpath.go).
//
// The runs are the same when their event sets are equal, whatever their
// status or other run fields: this is what `tine diff --exit-code` gates.

// DiffOptions configures Diff.
type DiffOptions struct {
	// Text adds unified diffs of the output and stderr blobs of aligned
	// events whose blobs differ.
	Text bool
	// TextOptions bounds those diffs (size cap, context lines); the names
	// are filled in by Diff.
	TextOptions TextDiffOptions
	// Brief leaves out the two lists that grow with the runs' length,
	// DiffResult.Common and each side's ToolPath (both nil): a caller that
	// shows counts and DiffResult.ToolPaths (the human output) then pays
	// for the divergent events only, not for every shared one.
	Brief bool
}

// DiffSide describes one run of a diff.
type DiffSide struct {
	// Revision is the argument that named the run; Ref the ref it went
	// through ("" for an object name).
	Revision string `json:"revision,omitempty"`
	Ref      string `json:"ref,omitempty"`
	// Run is the run's oid; Stored is false for a run derived by REV~N.
	Run    string `json:"run"`
	Stored bool   `json:"stored"`
	// Totals sums the run's events; Score is the run's score (see
	// RunScore), absent when no event carries one.
	Totals Totals   `json:"totals"`
	Score  *float64 `json:"score,omitempty"`
	// ToolPath lists what each event called, in the run's order; nil
	// with DiffOptions.Brief.
	ToolPath []string `json:"tool_path"`
}

// EventBrief names one event in a diff.
type EventBrief struct {
	OID string `json:"oid"`
	// Position is the event's index in its run (0 is the first event).
	Position int    `json:"position"`
	Kind     string `json:"kind,omitempty"`
	Label    string `json:"label,omitempty"`
	// Command is the recorded command line, for events tine record wrote.
	Command string `json:"command,omitempty"`
	Missing bool   `json:"missing,omitempty"`
}

// AlignedPair is a divergent event of A paired with one of B.
type AlignedPair struct {
	// Alignment is AlignMatched (same kind and call) or AlignReplaced.
	Alignment string        `json:"alignment"`
	A         EventBrief    `json:"a"`
	B         EventBrief    `json:"b"`
	Changes   []FieldChange `json:"changes"`
	// Text holds the blob diffs requested with DiffOptions.Text.
	Text []BlobDiff `json:"text,omitempty"`
}

// BlobDiff is the text diff of one blob field of an aligned pair.
type BlobDiff struct {
	Field string    `json:"field"`
	Diff  *TextDiff `json:"diff"`
}

// Delta is B minus A.
type Delta struct {
	Events   int      `json:"events"`
	Cost     float64  `json:"cost"`
	Duration float64  `json:"duration"`
	Tokens   float64  `json:"tokens"`
	Score    *float64 `json:"score,omitempty"`
}

// DiffResult is what `tine diff` reports.
type DiffResult struct {
	A DiffSide `json:"a"`
	B DiffSide `json:"b"`
	// Identical reports equal event sets: the runs recorded the same work.
	Identical bool `json:"identical"`
	// CommonAncestor is the newest event in both runs, "" when they share
	// none; Common lists every shared event in A's order (nil with
	// DiffOptions.Brief) and CommonCount counts them.
	CommonAncestor string   `json:"common_ancestor"`
	Common         []string `json:"common_events"`
	CommonCount    int      `json:"-"`
	// OnlyA and OnlyB are the divergent events in their runs' order.
	OnlyA []EventBrief `json:"only_a"`
	OnlyB []EventBrief `json:"only_b"`
	// Aligned pairs divergent events of A and B (see Align).
	Aligned []AlignedPair `json:"aligned"`
	Delta   Delta         `json:"delta"`
	// ToolPathChanged reports different tool paths.
	ToolPathChanged bool `json:"tool_path_changed"`
	// ToolPaths is the tool paths as the human output shows them: the
	// steps both start with, counted, and each one's steps after them.
	// It is not in the JSON, whose tool_path fields hold the whole paths.
	ToolPaths ToolPathView `json:"-"`
}

// DiffRevisions resolves two revisions with ResolveRun and diffs the runs.
// A run named directly is not loaded whole: Diff reads its events as it
// needs them.
func DiffRevisions(ctx context.Context, r *plumbing.Repo, revA, revB string, opt DiffOptions) (*DiffResult, error) {
	return diffRevisions(ctx, r, r.Objects(), revA, revB, opt)
}

// diffRevisions is DiffRevisions reading every object through g.
func diffRevisions(ctx context.Context, r *plumbing.Repo, g objects.Getter, revA, revB string, opt DiffOptions) (*DiffResult, error) {
	if res, ok, err := diffIndexed(ctx, r, g, revA, revB, opt); ok {
		return res, err
	}
	a, refA, err := resolveRunHead(ctx, r, g, revA)
	if err != nil {
		return nil, err
	}
	b, refB, err := resolveRunHead(ctx, r, g, revB)
	if err != nil {
		return nil, err
	}
	res, err := Diff(ctx, g, a, b, opt)
	if err != nil {
		return nil, err
	}
	res.A.Revision, res.A.Ref = revA, refA
	res.B.Revision, res.B.Ref = revB, refB
	return res, nil
}

// Diff compares two runs. The shared and divergent events are told apart
// from the runs' event lists alone; then the divergent events are read
// (and kept, for the alignment), and each shared event is read once and
// kept only as the summary the totals and tool paths need, from whichever
// side holds it (sharedSummaries). Events of a
// run whose events are not loaded (EventsLoaded) are read through g, and
// so are blobs (opt.Text).
func Diff(ctx context.Context, g objects.Getter, a, b *Run, opt DiffOptions) (*DiffResult, error) {
	res := &DiffResult{OnlyA: []EventBrief{}, OnlyB: []EventBrief{}, Aligned: []AlignedPair{}}
	if !opt.Brief {
		res.Common = []string{}
	}
	idsA, idsB := runIDs(a), runIDs(b)
	divA, divB := splitDivergent(res, idsA, idsB, 0, !opt.Brief)
	evA, err := divergent(ctx, g, a, idsA, divA)
	if err != nil {
		return nil, err
	}
	evB, err := divergent(ctx, g, b, idsB, divB)
	if err != nil {
		return nil, err
	}
	for k, i := range divA {
		res.OnlyA = append(res.OnlyA, briefEvent(evA[k], i))
	}
	for k, i := range divB {
		res.OnlyB = append(res.OnlyB, briefEvent(evB[k], i))
	}
	shared, err := sharedSummaries(ctx, g, a, b, idsA, divA)
	if err != nil {
		return nil, err
	}
	if res.A, err = diffSide(ctx, g, a, idsA, divA, evA, shared); err != nil {
		return nil, err
	}
	if res.B, err = diffSide(ctx, g, b, idsB, divB, evB, shared); err != nil {
		return nil, err
	}
	// From offset 0 the view never asks for earlier steps: no error.
	res.ToolPaths, _ = newToolPathView(res.A.ToolPath, res.B.ToolPath, 0, nil)
	if opt.Brief {
		res.A.ToolPath, res.B.ToolPath = nil, nil
	}
	return finishDiff(ctx, g, res, divA, divB, evA, evB, opt)
}

// splitDivergent tells the events of a and b (two event lists from
// position offset on) shared by both from those only one holds: shared
// ones are counted in res.CommonCount and, when list is set, added to
// res.Common in a's order (the last becomes the common ancestor); the
// positions of the others are returned.
func splitDivergent(res *DiffResult, a, b []objects.OID, offset int, list bool) (divA, divB []int) {
	inA, inB := oidSet(a), oidSet(b)
	last := -1
	for i, id := range a {
		if inB[id] {
			last = i
			res.CommonCount++
			if list {
				res.Common = append(res.Common, id.String())
			}
			continue
		}
		divA = append(divA, offset+i)
	}
	if last >= 0 {
		res.CommonAncestor = a[last].String()
	}
	for i, id := range b {
		if !inA[id] {
			divB = append(divB, offset+i)
		}
	}
	return divA, divB
}

// finishDiff aligns the divergent events evA and evB (at positions divA
// and divB), adds the blob diffs asked for and the deltas of the sides'
// totals.
func finishDiff(ctx context.Context, g objects.Getter, res *DiffResult, divA, divB []int, evA, evB []*Event, opt DiffOptions) (*DiffResult, error) {
	res.Identical = len(divA) == 0 && len(divB) == 0
	keysA, keysB := make([]string, len(divA)), make([]string, len(divB))
	for k, e := range evA {
		keysA[k] = alignKey(e)
	}
	for k, e := range evB {
		keysB[k] = alignKey(e)
	}
	for _, st := range Align(keysA, keysB) {
		if st.A < 0 || st.B < 0 {
			continue
		}
		ea, eb := evA[st.A], evB[st.B]
		p := AlignedPair{Alignment: st.Kind, A: res.OnlyA[st.A], B: res.OnlyB[st.B], Changes: eventChanges(ea, eb)}
		if opt.Text {
			td, err := blobDiffs(ctx, g, ea, eb, opt.TextOptions)
			if err != nil {
				return nil, err
			}
			p.Text = td
		}
		res.Aligned = append(res.Aligned, p)
	}
	ta, tb := res.A.Totals, res.B.Totals
	res.Delta = Delta{Events: tb.Events - ta.Events, Cost: tb.Cost - ta.Cost, Duration: tb.Duration - ta.Duration, Tokens: tb.Tokens - ta.Tokens}
	if res.A.Score != nil && res.B.Score != nil {
		d := *res.B.Score - *res.A.Score
		res.Delta.Score = &d
	}
	res.ToolPathChanged = res.ToolPaths.Changed()
	return res, nil
}

// RunScore returns the run's score: the score of its newest event that
// carries one (a loop iteration's evaluation), or nil.
func RunScore(r *Run) *float64 {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if s := r.Events[i].Score; s != nil {
			v := *s
			return &v
		}
	}
	return nil
}

// briefEvent names event e at position i of its run.
func briefEvent(e *Event, i int) EventBrief {
	return EventBrief{OID: e.ID.String(), Position: i, Kind: e.Kind, Label: e.Label(), Command: eventCommand(e), Missing: e.Missing}
}

// blobDiffs diffs the output (stdout) and artifact (stderr) blobs of a
// pair when they differ; a side without the blob counts as empty.
func blobDiffs(ctx context.Context, g objects.Getter, a, b *Event, opt TextDiffOptions) ([]BlobDiff, error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultTextDiffMaxBytes
	}
	var out []BlobDiff
	for _, f := range []struct {
		name string
		a, b objects.OID
	}{{"output_blob", a.OutputBlob, b.OutputBlob}, {"artifact_blob", a.ArtifactBlob, b.ArtifactBlob}} {
		if f.a == f.b {
			continue
		}
		ta, na, err := blobText(ctx, g, f.a, limit)
		if err != nil {
			return nil, err
		}
		tb, nb, err := blobText(ctx, g, f.b, limit)
		if err != nil {
			return nil, err
		}
		if na > limit || nb > limit {
			out = append(out, BlobDiff{Field: f.name, Diff: &TextDiff{TooLarge: true, OldSize: na, NewSize: nb}})
			continue
		}
		o := opt
		o.OldName, o.NewName = blobLabel("a", f.name, f.a), blobLabel("b", f.name, f.b)
		out = append(out, BlobDiff{Field: f.name, Diff: UnifiedDiff(ta, tb, o)})
	}
	return out, nil
}

// blobSizer is the optional store capability of learning a blob's size
// without reading it (loose.Store.OpenBlob), so a blob over the
// text-diff cap is never loaded.
type blobSizer interface {
	OpenBlob(ctx context.Context, id objects.OID) (io.ReadCloser, int64, error)
}

// blobText reads a blob's bytes and size; the zero oid is the empty text.
// A blob larger than limit is returned with its size only.
func blobText(ctx context.Context, g objects.Getter, id objects.OID, limit int) ([]byte, int, error) {
	if id.IsZero() {
		return nil, 0, nil
	}
	if s, ok := g.(blobSizer); ok {
		rc, n, err := s.OpenBlob(ctx, id)
		if err != nil {
			return nil, 0, fmt.Errorf("blob %s: %w", id, err)
		}
		rc.Close()
		if n > int64(limit) {
			return nil, int(min(n, int64(math.MaxInt32))), nil
		}
	}
	o, err := g.Get(ctx, id)
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", id, err)
	}
	return o.Body, len(o.Body), nil
}

// blobLabel names a side of a blob diff for the ---/+++ header:
// "a/output_blob 5b060f46d6ff", or /dev/null for an absent blob.
func blobLabel(side, field string, id objects.OID) string {
	if id.IsZero() {
		return "/dev/null"
	}
	return side + "/" + field + " " + Short(id)
}
