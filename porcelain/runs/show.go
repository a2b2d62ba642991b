package runs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// DefaultPreviewLines is how many lines of each blob show previews.
const DefaultPreviewLines = 10

// maxPreviewLineBytes cuts a very long preview line.
const maxPreviewLineBytes = 400

// ShowOptions configures Show.
type ShowOptions struct {
	// Rev names any object: a revision, or REV~N for a run.
	Rev string
	// PreviewLines is the lines of each event blob to preview; 0 means
	// DefaultPreviewLines.
	PreviewLines int
	// Brief leaves a stored run's Entries out (show --json prints none):
	// its totals then come from the history index's cumulative sums when
	// the index holds the run or can add it, reading no event once it
	// does.
	Brief bool
}

// ShowResult is what `tine show` reports. Payload is the object's JSON
// body (absent for a blob); the other exported fields feed the human view.
type ShowResult struct {
	OID     string          `json:"oid"`
	Type    objects.Type    `json:"type"`
	Ref     string          `json:"ref,omitempty"`
	Stored  bool            `json:"stored"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Size    int             `json:"size"`
	Totals  *Totals         `json:"totals,omitempty"`
	Blobs   []BlobPreview   `json:"blobs,omitempty"`

	// Run is the loaded run (type run), Event the decoded event (type
	// event), Body the blob's bytes (type blob). A stored run is loaded
	// without its events (Run.Events is empty): Entries describe them.
	Run *Run `json:"-"`
	// Entries describe a run's events in its order, as log does without
	// refs.
	Entries []LogEntry `json:"-"`
	Event   *Event     `json:"-"`
	Body    []byte     `json:"-"`
}

// BlobPreview is the first lines of one blob an event links.
type BlobPreview struct {
	Field   string   `json:"field"`
	OID     string   `json:"oid"`
	Size    int      `json:"size"`
	Binary  bool     `json:"binary"`
	Missing bool     `json:"missing,omitempty"`
	Lines   []string `json:"lines,omitempty"`
	More    int      `json:"more_lines,omitempty"`
}

// Show loads any object for display: a run with its events and totals, an
// event with previews of its input, output and artifact blobs, an
// attestation or annotation payload, or a blob's bytes.
func Show(ctx context.Context, r *plumbing.Repo, opt ShowOptions) (*ShowResult, error) {
	if strings.ContainsRune(opt.Rev, '~') {
		run, ref, err := ResolveRun(ctx, r, opt.Rev)
		if err != nil {
			return nil, err
		}
		return ShowRun(run, ref), nil
	}
	id, ref, err := r.ResolveRevision(ctx, opt.Rev)
	if err != nil {
		return nil, err
	}
	if id.Type == objects.TypeRun {
		if opt.Brief {
			if res, ok, err := showIndexedRun(ctx, r, id, ref); ok || err != nil {
				return res, err
			}
		}
		return showStoredRun(ctx, r.Objects(), id, ref)
	}
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, err)
	}
	res := &ShowResult{OID: id.String(), Type: id.Type, Ref: ref, Stored: true, Size: len(o.Body)}
	switch o.Type {
	case objects.TypeBlob:
		res.Body = o.Body
		return res, nil
	case objects.TypeEvent:
		ev, err := DecodeEvent(o)
		if err != nil {
			return nil, err
		}
		res.Event = ev
		n := opt.PreviewLines
		if n <= 0 {
			n = DefaultPreviewLines
		}
		for _, slot := range blobSlots {
			bid, ok := OIDField(o.Value, slot.field)
			if !ok {
				continue
			}
			p, err := previewBlob(ctx, r.Objects(), slot.field, bid, n)
			if err != nil {
				return nil, err
			}
			res.Blobs = append(res.Blobs, p)
		}
	}
	res.Payload = json.RawMessage(o.Body)
	return res, nil
}

// ShowRun builds the result for a run whose events are loaded.
func ShowRun(run *Run, ref string) *ShowResult {
	t := run.Totals()
	entries := make([]LogEntry, len(run.Events))
	for i, e := range run.Events {
		entries[i] = EntryOf(e)
	}
	return &ShowResult{OID: run.ID.String(), Type: objects.TypeRun, Ref: ref, Stored: run.Stored,
		Payload: json.RawMessage(run.Object.Body), Size: len(run.Object.Body), Totals: &t, Run: run, Entries: entries}
}

// showStoredRun is ShowRun of stored run id read as LoadRun reads it,
// one event at a time: each is summed into the totals and described, then
// let go, so a long run's events are not all held decoded (150 MiB for
// 30,000 events of 1 KiB).
func showStoredRun(ctx context.Context, g objects.Getter, id objects.OID, ref string) (*ShowResult, error) {
	run, err := readRun(ctx, g, id)
	if err != nil {
		return nil, err
	}
	ids := run.EventIDs()
	// The sums run in the run's order, as Totals adds them.
	t := Totals{Events: len(ids)}
	entries := make([]LogEntry, 0, len(ids))
	for _, eid := range ids {
		e, err := loadEvent(ctx, g, run.ID, eid)
		if err != nil {
			return nil, err
		}
		t.Cost += e.Cost
		t.Duration += e.Duration
		t.Tokens += e.Tokens()
		if e.Missing {
			t.Missing++
		}
		entries = append(entries, detached(EntryOf(e)))
	}
	return &ShowResult{OID: run.ID.String(), Type: objects.TypeRun, Ref: ref, Stored: run.Stored,
		Payload: json.RawMessage(run.Object.Body), Size: len(run.Object.Body), Totals: &t, Run: run, Entries: entries}, nil
}

// previewBlob reads the first n lines of blob id.
func previewBlob(ctx context.Context, g objects.Getter, field string, id objects.OID, n int) (BlobPreview, error) {
	p := BlobPreview{Field: field, OID: id.String()}
	o, err := g.Get(ctx, id)
	if err != nil {
		if err := plumbing.Absent(id, err); err != nil {
			return p, fmt.Errorf("%s %s: %w", field, id, err)
		}
		p.Missing = true // on the shallow boundary
		return p, nil
	}
	p.Size = len(o.Body)
	if IsBinary(o.Body) {
		p.Binary = true
		return p, nil
	}
	text := strings.TrimSuffix(string(o.Body), "\n")
	if text == "" {
		return p, nil
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		p.More = len(lines) - n
		lines = lines[:n]
	}
	for i, l := range lines {
		if len(l) > maxPreviewLineBytes {
			l = strings.ToValidUTF8(l[:maxPreviewLineBytes], "") + "..."
		}
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	p.Lines = lines
	return p, nil
}

// IsBinary reports whether b looks binary: a NUL byte or invalid UTF-8 in
// its first 8000 bytes (git's heuristic window).
func IsBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
		// Do not call a multi-byte rune cut by the window invalid.
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}
