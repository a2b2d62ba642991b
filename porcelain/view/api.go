package view

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// Bounds of what one API answer carries: recorded content can be of any
// size, a page should not be.
const (
	// MaxRowsPage is the most rows /api/rows returns at once.
	MaxRowsPage = 1000
	// maxFieldText cuts the JSON text of one event field.
	maxFieldText = 8 << 10
	// maxErrorText cuts an event's error in row summaries.
	maxErrorText = 200
	// MaxLabelText cuts an event's kind and label in row summaries: a
	// recorded model or tool name can be megabytes, and a row is drawn
	// on one line (the event panel shows the fields whole, up to
	// maxFieldText).
	MaxLabelText = 200
)

// errorf wraps a sentinel with a message.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// graphInfo is /api/graph: the sizes of the graph and its runs.
type graphInfo struct {
	Version int        `json:"version"`
	Events  int        `json:"events"`
	Rows    int        `json:"rows"`
	Lanes   int        `json:"lanes"`
	Runs    []GraphRun `json:"runs"`
}

func (s *Server) handleGraph(ctx context.Context, _ *http.Request) (any, error) {
	snap, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	// An evaluation moves no ref, so the snapshot's scores are read again
	// from the catalog whenever the page loads the graph.
	cat, _, err := plumbing.OpenIndex(s.r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	for i := range snap.graph.Runs {
		gr := &snap.graph.Runs[i]
		id, err := objects.ParseOID(gr.Run)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", gr.Run, err)
		}
		gr.Scores = runScores(cat, id)
	}
	return &graphInfo{Version: snap.version, Events: len(snap.graph.Events), Rows: len(snap.layout.Rows),
		Lanes: snap.layout.Lanes, Runs: snap.graph.Runs}, nil
}

// rowsPage is /api/rows: rows offset.. of the snapshot version.
type rowsPage struct {
	Version int       `json:"version"`
	Offset  int       `json:"offset"`
	Rows    []pageRow `json:"rows"`
}

// pageRow is a layout row with its event's summary.
type pageRow struct {
	LayoutRow
	Event *rowEvent `json:"e,omitempty"`
}

// rowEvent is what the graph writes beside a node.
type rowEvent struct {
	Event    string   `json:"event"`
	Short    string   `json:"short"`
	Kind     string   `json:"kind,omitempty"`
	Label    string   `json:"label,omitempty"`
	Refs     []string `json:"refs,omitempty"`
	ExitCode *int64   `json:"exit_code,omitempty"`
	Score    *float64 `json:"score,omitempty"`
	Error    string   `json:"error,omitempty"`
	Missing  bool     `json:"missing,omitempty"`
}

func (s *Server) handleRows(ctx context.Context, req *http.Request) (any, error) {
	off, err := intParam(req, "offset", 0, 1<<30)
	if err != nil {
		return nil, err
	}
	n, err := intParam(req, "limit", 256, MaxRowsPage)
	if err != nil {
		return nil, err
	}
	snap, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	rows := snap.layout.Rows
	off = min(off, len(rows))
	end := min(off+n, len(rows))
	page := &rowsPage{Version: snap.version, Offset: off, Rows: make([]pageRow, 0, end-off)}
	for _, row := range rows[off:end] {
		pr := pageRow{LayoutRow: row}
		if row.Node >= 0 {
			le := &snap.graph.Events[row.Node]
			pr.Event = &rowEvent{Event: le.Event, Short: le.Short, Kind: clipText(le.Kind, MaxLabelText), Label: clipText(le.Label, MaxLabelText), Refs: le.Refs,
				ExitCode: le.ExitCode, Score: le.Score, Error: clipText(le.Error, maxErrorText), Missing: le.Missing}
		}
		page.Rows = append(page.Rows, pr)
	}
	return page, nil
}

// eventView is /api/event/{oid}: the event's fields and blob previews.
type eventView struct {
	OID    string             `json:"oid"`
	Size   int                `json:"size"`
	Fields []field            `json:"fields"`
	Blobs  []runs.BlobPreview `json:"blobs"`
}

// field is one top-level member of a payload, as JSON text.
type field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Cut   bool   `json:"cut,omitempty"`
}

func (s *Server) handleEvent(ctx context.Context, req *http.Request) (any, error) {
	id, err := oidParam(req, objects.TypeEvent)
	if err != nil {
		return nil, err
	}
	res, err := runs.Show(ctx, s.r, runs.ShowOptions{Rev: id.String()})
	if err != nil {
		return nil, err
	}
	fields, err := payloadFields(res.Payload)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", id, err)
	}
	ev := &eventView{OID: res.OID, Size: res.Size, Fields: fields, Blobs: res.Blobs}
	if ev.Blobs == nil {
		ev.Blobs = []runs.BlobPreview{}
	}
	return ev, nil
}

// payloadFields splits a payload into its members, sorted by name, each
// value's JSON text cut to maxFieldText.
func payloadFields(payload []byte) ([]field, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, err
	}
	out := make([]field, 0, len(m))
	for name, raw := range m {
		f := field{Name: name, Value: string(raw)}
		if len(f.Value) > maxFieldText {
			f.Value, f.Cut = clipText(f.Value, maxFieldText), true
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b field) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, nil
}

// oidParam parses the {oid} path parameter as a full oid of type want.
func oidParam(req *http.Request, want objects.Type) (objects.OID, error) {
	v := req.PathValue("oid")
	if len(v) > plumbing.MaxRevisionLen {
		return objects.OID{}, errorf(errBadRequest, "oid is too long")
	}
	id, err := objects.ParseOID(v)
	if err != nil {
		return objects.OID{}, errorf(errBadRequest, "%v", err)
	}
	if id.Type != want {
		return objects.OID{}, errorf(errBadRequest, "%s is %s, not %s", id, id.Type.WithArticle(), want.WithArticle())
	}
	return id, nil
}

// clipText cuts s to at most n bytes on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
