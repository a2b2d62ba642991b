package runs

import (
	"context"
	"fmt"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// OTLPImportOptions configures ImportOTLP.
type OTLPImportOptions struct {
	// Ref is the run's ref; empty means DefaultRef. An existing run is
	// extended; an absent ref is created.
	Ref string
	// Data is the OTLP/JSON export (at most MaxOTLPBytes).
	Data []byte
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
	// Progress, when set, is called from the calling goroutine as spans
	// are converted (Done of Total spans) and as the write starts.
	Progress func(plumbing.GCProgress)
}

// OTLPImportResult is what `tine import --format otlp` reports.
type OTLPImportResult struct {
	ImportResult
	// Spans counts the spans imported, one event each; Traces lists their
	// trace ids in order of first appearance.
	Spans  int      `json:"spans"`
	Traces []string `json:"traces"`
	// Unresolved lists the parent and link references to spans the export
	// does not hold (a partial trace): the spans are imported all the same.
	Unresolved []OTLPUnresolved `json:"unresolved"`
}

// otlpRunSpans maps the trace and span ids of the run's events to their
// oids, so that an export continuing a trace an earlier import wrote links
// to its spans. The run's events are read only when some span names a
// span the export does not hold.
func otlpRunSpans(ctx context.Context, r *plumbing.Repo, h *head, spans []*otlpSpan, byKey map[string]*otlpSpan) (map[string]objects.OID, error) {
	need := false
	for _, sp := range spans {
		if sp.parent != "" && byKey[otlpKey(sp.trace, sp.parent)] == nil {
			need = true
		}
		for _, l := range sp.links {
			need = need || byKey[otlpKey(l.trace, l.span)] == nil
		}
	}
	known := map[string]objects.OID{}
	if !need || !h.exists() {
		return known, nil
	}
	run, err := LoadRun(ctx, r.Objects(), h.id())
	if err != nil {
		return nil, err
	}
	for _, e := range run.Events {
		if e.Missing {
			continue
		}
		t, okT := e.Value.Get("trace_id")
		s, okS := e.Value.Get("span_id")
		if okT && okS && t.Kind == objects.KindString && s.Kind == objects.KindString {
			known[otlpKey(t.Str, s.Str)] = e.ID
		}
	}
	return known, nil
}

// OTLPUnresolved is a reference from a span to a span the export lacks.
type OTLPUnresolved struct {
	Trace string `json:"trace_id"`
	Span  string `json:"span_id"`
	// Ref is the missing span's id; Kind is "parent" or "link".
	Ref  string `json:"ref"`
	Kind string `json:"kind"`
}

// ImportOTLP appends the spans of an OTLP/JSON trace export to the run at
// opt.Ref as events, all or nothing, through the JSONL import's write path
// (each span becomes an import spec: importer.spec validates, redacts and
// stores it; importer.commit moves the ref once). A span's parentSpanId
// becomes its parent_ids when the export holds the parent; a span without
// one, or whose parent is missing, follows the run's tips before the import
// (none for a new run), unless the run already holds that parent (an
// earlier import of the same trace: otlpRunSpans); a parent missing from
// both is kept in unresolved_span_refs and reported. Span links to spans placed earlier
// become causal_ids. Spans are ordered parents first, then by start time.
// A span given twice or a cycle of parents refuses the whole export.
func ImportOTLP(ctx context.Context, r *plumbing.Repo, opt OTLPImportOptions) (*OTLPImportResult, error) {
	spans, err := parseOTLP(opt.Data)
	if err != nil {
		return nil, err
	}
	ordered, byKey, err := otlpOrder(spans)
	if err != nil {
		return nil, err
	}
	im, err := newImporter(ctx, r, opt.Ref, "")
	if err != nil {
		return nil, err
	}
	im.progress = opt.Progress
	tips := make([]string, 0, len(im.prev))
	for _, id := range im.prev {
		tips = append(tips, id.String())
	}
	known, err := otlpRunSpans(ctx, r, im.h, spans, byKey)
	if err != nil {
		return nil, err
	}
	res := &OTLPImportResult{Spans: len(ordered), Traces: []string{}, Unresolved: []OTLPUnresolved{}}
	seenTrace := map[string]bool{}
	placed := map[string]bool{}
	for _, sp := range spans {
		if !seenTrace[sp.trace] {
			seenTrace[sp.trace] = true
			res.Traces = append(res.Traces, sp.trace)
		}
	}
	for i, sp := range ordered {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		im.report("converting spans", i, len(ordered))
		parents, causal, unresolved := tips, []string(nil), []string(nil)
		if p, ok := otlpParent(sp, byKey); ok {
			parents = []string{otlpKey(p.trace, p.id)}
		} else if id, ok := known[otlpKey(sp.trace, sp.parent)]; ok {
			parents = []string{id.String()}
		} else if sp.parent != "" {
			unresolved = append(unresolved, sp.parent)
			res.Unresolved = append(res.Unresolved, OTLPUnresolved{Trace: sp.trace, Span: sp.id, Ref: sp.parent, Kind: "parent"})
		}
		seen := map[string]bool{}
		for _, l := range sp.links {
			trace := l.trace
			if trace == "" {
				trace = sp.trace
			}
			k := otlpKey(trace, l.span)
			switch {
			case seen[k] || len(parents) == 1 && parents[0] == k:
			case placed[k]:
				causal = append(causal, k)
			case !known[k].IsZero():
				causal = append(causal, known[k].String())
			default:
				unresolved = append(unresolved, l.span)
				res.Unresolved = append(res.Unresolved, OTLPUnresolved{Trace: sp.trace, Span: sp.id, Ref: l.span, Kind: "link"})
			}
			seen[k] = true
		}
		spec, err := otlpSpec(sp, parents, causal, unresolved)
		if err == nil {
			err = im.spec(spec)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: span %s (trace %s): %w", ErrBadOTLP, sp.id, sp.trace, err)
		}
		placed[otlpKey(sp.trace, sp.id)] = true
	}
	ir, err := im.commit(ctx, r, opt.Actor, Clock(opt.Now)())
	if err != nil {
		return nil, err
	}
	res.ImportResult = *ir
	return res, nil
}
