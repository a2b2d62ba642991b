package agents

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Bounds of show and context results.
const (
	// defaultShowBytes is the blob prefix and payload size show returns
	// unless asked for more; maxShowBytes is the most it returns.
	defaultShowBytes = 64 << 10
	maxShowBytes     = 1 << 20
)

// showIn is show's input.
type showIn struct {
	Rev      string `json:"rev" max:"1024" jsonschema:"any object: oid, prefix, ref, REF@{n}, or a run as REF~N"`
	MaxBytes int    `json:"max_bytes,omitempty" max:"1048576" jsonschema:"at most this many bytes of a blob or payload (default 65536)"`
	Lines    int    `json:"lines,omitempty" max:"200" jsonschema:"lines of each blob an event links to preview (default 10)"`
}

// showOut is show's result: runs.ShowResult, with a blob's bytes as a
// bounded prefix and a payload over the bound left out.
type showOut struct {
	*runs.ShowResult
	// Text is the blob's prefix when it is text, Base64 when it is not.
	Text   *string `json:"text,omitempty"`
	Base64 *string `json:"base64,omitempty"`
	// Truncated says the blob or payload was cut at max_bytes.
	Truncated bool `json:"truncated,omitempty"`
}

// show is runs.Show (tine show). The store re-hashes every object it
// reads, so a blob's prefix is a prefix of bytes verified whole.
func (s *Server) show(ctx context.Context, r *plumbing.Repo, in showIn) (any, error) {
	res, err := runs.Show(ctx, r, runs.ShowOptions{Rev: in.Rev, PreviewLines: in.Lines})
	if err != nil {
		return nil, err
	}
	return boundShow(res, orInt(in.MaxBytes, defaultShowBytes)), nil
}

// boundShow cuts res to max bytes of blob or payload.
func boundShow(res *runs.ShowResult, max int) *showOut {
	out := &showOut{ShowResult: res}
	if res.Type == objects.TypeBlob {
		b := res.Body
		if runs.IsBinary(b) {
			if len(b) > max {
				b, out.Truncated = b[:max], true
			}
			enc := base64.StdEncoding.EncodeToString(b)
			out.Base64 = &enc
			return out
		}
		if len(b) > max {
			b, out.Truncated = runePrefix(b, max), true
		}
		text := string(b)
		out.Text = &text
		return out
	}
	if len(res.Payload) > max {
		cp := *res
		cp.Payload = nil
		out.ShowResult, out.Truncated = &cp, true
	}
	return out
}

// runePrefix is text b cut to at most max bytes, not inside a UTF-8
// sequence.
func runePrefix(b []byte, max int) []byte {
	n := max
	for n > 0 && n > max-utf8.UTFMax && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// contextIn is context's input.
type contextIn struct {
	Event     string `json:"event" max:"1024" jsonschema:"the event: oid or prefix, or a run revision meaning that run's newest event"`
	Depth     *int   `json:"depth,omitempty" max:"1000" jsonschema:"ancestor generations to include (default 3; 0 is the event alone)"`
	MaxEvents int    `json:"max_events,omitempty" max:"1000" jsonschema:"at most this many events (default 50)"`
	Lines     int    `json:"lines,omitempty" max:"200" jsonschema:"lines of each blob to preview (default 10)"`
}

// contextEvent is one event of a context slice.
type contextEvent struct {
	// Depth is the number of links from the asked event (0 for itself).
	Depth int `json:"depth"`
	// Missing is set for an ancestor on the shallow boundary, not stored
	// locally; its own ancestors are unknown.
	Missing bool `json:"missing,omitempty"`
	*runs.ShowResult
}

// contextOut is context's result, nearest events first.
type contextOut struct {
	Event     string         `json:"event"`
	Events    []contextEvent `json:"events"`
	Truncated bool           `json:"truncated,omitempty"`
}

// context walks from the event through parent_ids and causal_ids, breadth
// first, to the depth asked; each event is shown as runs.Show shows it
// (payload and blob previews, verified on read).
func (s *Server) context(ctx context.Context, r *plumbing.Repo, in contextIn) (any, error) {
	start, err := contextStart(ctx, r, in.Event)
	if err != nil {
		return nil, err
	}
	depth, max := 3, orInt(in.MaxEvents, 50)
	if in.Depth != nil {
		depth = *in.Depth
	}
	out := &contextOut{Event: start.String(), Events: []contextEvent{}}
	seen := map[objects.OID]bool{start: true}
	level := []objects.OID{start}
	for d := 0; len(level) > 0 && d <= depth; d++ {
		var next []objects.OID
		for _, id := range level {
			if len(out.Events) == max {
				out.Truncated = true
				return out, nil
			}
			res, err := runs.Show(ctx, r, runs.ShowOptions{Rev: id.String(), PreviewLines: in.Lines})
			if errors.Is(err, plumbing.ErrUnknownRevision) || errors.Is(err, plumbing.ErrBeyondShallow) {
				// A linked event not stored: on the shallow boundary it
				// is shown missing; otherwise the repository is damaged.
				if _, gerr := r.Objects().Get(ctx, id); gerr != nil {
					if gerr := plumbing.Absent(id, gerr); gerr != nil {
						return nil, gerr
					}
					out.Events = append(out.Events, contextEvent{Depth: d, Missing: true, ShowResult: &runs.ShowResult{OID: id.String(), Type: id.Type}})
					continue
				}
			}
			if err != nil {
				return nil, err
			}
			out.Events = append(out.Events, contextEvent{Depth: d, ShowResult: res})
			for _, p := range append(append([]objects.OID{}, res.Event.Parents...), res.Event.Causal...) {
				if !seen[p] {
					seen[p] = true
					next = append(next, p)
				}
			}
		}
		level = next
	}
	return out, nil
}

// contextStart resolves the event argument: an event revision, or a run
// revision (REF, REF~N, ...) standing for the run's newest event, as
// fork's --from does.
func contextStart(ctx context.Context, r *plumbing.Repo, rev string) (objects.OID, error) {
	if id, err := r.Resolve(ctx, rev); err == nil && id.Type == objects.TypeEvent {
		return id, nil
	}
	run, _, err := runs.ResolveRun(ctx, r, rev)
	if err != nil {
		return objects.OID{}, fmt.Errorf("event %s: %w", rev, err)
	}
	if len(run.Events) == 0 {
		return objects.OID{}, fmt.Errorf("event %s: run %s has no events: %w", rev, run.ID, runs.ErrNotEvent)
	}
	return run.Events[len(run.Events)-1].ID, nil
}
