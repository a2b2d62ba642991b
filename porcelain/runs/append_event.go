package runs

import (
	"context"
	"fmt"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// AppendResult names what an append wrote.
type AppendResult struct {
	Ref      string `json:"ref"`
	Run      string `json:"run"`
	Previous string `json:"previous,omitempty"`
	Event    string `json:"event"`
	Created  bool   `json:"created"`
}

// appendOne builds the event from payload, the run h's run plus it, and
// commits blobs, event and run, then moves h.ref by compare-and-swap.
func appendOne(ctx context.Context, r *plumbing.Repo, h *head, payload objects.Value, blobs []*objects.Object, status string, now time.Time, actor string) (*AppendResult, error) {
	ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, payload)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	de, err := DecodeEvent(ev)
	if err != nil {
		return nil, err
	}
	run, err := h.appendedRun(r.Algo(), []*Event{de}, status, now)
	if err != nil {
		return nil, err
	}
	objs := append(append([]*objects.Object{}, blobs...), ev, run)
	if err := commitAppend(ctx, r, h, actor, objs); err != nil {
		return nil, err
	}
	res := &AppendResult{Ref: h.ref, Run: run.ID.String(), Event: ev.ID.String(), Created: !h.exists()}
	if h.exists() {
		res.Previous = h.id().String()
	}
	return res, nil
}

// AppendEventOptions configures AppendEvent.
type AppendEventOptions struct {
	// Ref is the run's ref; empty means DefaultRef. Created if absent.
	Ref string
	// Data is the event file: one JSON object, an event payload whose
	// input, output and artifact members may be blob specs (a string,
	// {"path": P} or {"b64": S}).
	Data []byte
	// Dir is the directory blob paths are relative to.
	Dir string
	// Status is the status of the new run snapshot; empty means running.
	Status string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
}

// MaxEventFileBytes bounds an event file.
const MaxEventFileBytes = 16 << 20

// AppendEvent appends any event (a model step with usage and cost, a human
// note) to the run at opt.Ref: the JSON is parsed strictly (duplicate keys,
// depth and token bounds), blobs are read and redacted, the payload is
// redacted, parent_ids defaults to the run's tips and time_unix to now, and
// the event must pass the SPEC §1.5 link and metrics rules.
func AppendEvent(ctx context.Context, r *plumbing.Repo, opt AppendEventOptions) (*AppendResult, error) {
	now := Clock(opt.Now)()
	ref, err := WritableRef(ctx, r, OrDefault(opt.Ref, DefaultRef))
	if err != nil {
		return nil, err
	}
	if err := checkStatus(opt.Status); err != nil {
		return nil, err
	}
	spec, err := ParseStrict(opt.Data, MaxEventFileBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	h, err := readHead(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if err := h.checkAppendable(); err != nil {
		return nil, err
	}
	var set []objects.Member
	if _, ok := spec.Get("parent_ids"); !ok {
		set = append(set, objects.Member{Key: "parent_ids", Value: OIDValues(h.tips)})
	}
	if _, ok := spec.Get("time_unix"); !ok {
		set = append(set, objects.Member{Key: "time_unix", Value: TimeValue(now)})
	}
	sr := &specReader{algo: r.Algo(), dir: opt.Dir}
	payload, blobs, err := sr.eventSpec(spec, nil, set)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	if err := objects.CheckMetrics(payload); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	return appendOne(ctx, r, h, payload, blobs, opt.Status, now, opt.Actor)
}

// ParseStrict parses one JSON document with the v3 body bounds: at most
// max bytes, the shape scan's token budget, duplicate keys refused, and an
// integer outside ±(2^53-1) refused rather than rounded (ParseInput).
func ParseStrict(data []byte, max int) (objects.Value, error) {
	if len(data) > max {
		return objects.Value{}, fmt.Errorf("%d bytes, more than %d", len(data), max)
	}
	if err := objects.ScanShape(data, objects.MaxBodyTokens); err != nil {
		return objects.Value{}, err
	}
	return objects.ParseInput(data, objects.ParseOptions{})
}
