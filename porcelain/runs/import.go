package runs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// Import stream bounds.
const (
	// MaxImportLine bounds one line of an import stream (LF excluded).
	MaxImportLine = 16 << 20
	// MaxImportEvents bounds the events of one import (the SPEC's graph
	// traversal bound, §1.6).
	MaxImportEvents = 10000
	// MaxImportLocalID bounds a local id.
	MaxImportLocalID = 256
)

// importReserved are event keys an import line may not carry: links are
// written by import from local ids and blob specs.
var importReserved = map[string]string{
	"parent_ids":    `use "parents" with local ids`,
	"causal_ids":    `use "causal" with local ids`,
	"input_blob":    `use "input" (text, {"path": ...} or {"b64": ...})`,
	"output_blob":   `use "output" (text, {"path": ...} or {"b64": ...})`,
	"artifact_blob": `use "artifact" (text, {"path": ...} or {"b64": ...})`,
}

// ImportOptions configures Import.
type ImportOptions struct {
	// Ref is the run's ref; empty means DefaultRef. An existing run is
	// extended; an absent ref is created.
	Ref string
	// Input is the JSONL stream.
	Input io.Reader
	// Dir is the directory "path" blob specs are relative to (the stream
	// file's directory).
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog.
	Actor string
	// Progress, when set, is called from the calling goroutine as lines
	// are read (Done events, Total 0) and as the write starts.
	Progress func(plumbing.GCProgress)
}

// ImportResult is what `tine import` reports.
type ImportResult struct {
	AppendResult
	// Events are the new event oids in stream order.
	Events []string `json:"events"`
	// IDs maps each line's local id to its event oid.
	IDs map[string]string `json:"ids"`
}

// Import turns a JSONL stream, one event per line, into events appended to
// the run at opt.Ref, all or nothing: the objects are validated and written
// first and the ref moves once, by compare-and-swap, at the end. Each line
// is an event payload plus:
//
//	"id":      a local id (string) later lines may name; optional, unique
//	"parents": local ids of earlier lines or event oids of the run; absent
//	           means the previous line's event (the run's tips for the
//	           first line), [] makes a root
//	"causal":  the same, for causal_ids; absent means none
//	"input", "output", "artifact": blob specs (text, {"path": P} relative to
//	           opt.Dir and confined to it, or {"b64": S})
//
// Blank lines are skipped. A bad line is an error wrapping ErrBadImport
// that names the line number.
func Import(ctx context.Context, r *plumbing.Repo, opt ImportOptions) (*ImportResult, error) {
	im, err := newImporter(ctx, r, opt.Ref, opt.Dir)
	if err != nil {
		return nil, err
	}
	im.progress = opt.Progress
	if err := im.read(ctx, opt.Input); err != nil {
		return nil, err
	}
	if len(im.events) == 0 {
		return nil, fmt.Errorf("%w: the stream holds no events", ErrBadImport)
	}
	return im.commit(ctx, r, opt.Actor, Clock(opt.Now)())
}

// importer holds the state of one import.
type importer struct {
	h      *head
	sr     *specReader
	local  map[string]objects.OID
	inRun  map[objects.OID]bool
	prev   []objects.OID
	events []*Event
	objs   []*objects.Object
	res    *ImportResult
	// progress is the caller's progress callback, or nil.
	progress func(plumbing.GCProgress)
}

// newImporter reads the run an import appends to (ref, default
// DefaultRef), which must be running; blob paths are relative to dir.
func newImporter(ctx context.Context, r *plumbing.Repo, ref, dir string) (*importer, error) {
	ref, err := WritableRef(ctx, r, OrDefault(ref, DefaultRef))
	if err != nil {
		return nil, err
	}
	h, err := readHead(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if err := h.checkAppendable(); err != nil {
		return nil, err
	}
	im := &importer{
		h:     h,
		sr:    &specReader{algo: r.Algo(), dir: dir},
		local: map[string]objects.OID{},
		inRun: map[objects.OID]bool{},
		prev:  h.tips,
		res:   &ImportResult{IDs: map[string]string{}},
	}
	return im, nil
}

// commit writes every event read, all or nothing: the objects, then the
// run, then one compare-and-swap of the ref.
func (im *importer) commit(ctx context.Context, r *plumbing.Repo, actor string, now time.Time) (*ImportResult, error) {
	h := im.h
	im.report(fmt.Sprintf("writing %d events", len(im.events)), 0, 0)
	run, err := h.appendedRun(r.Algo(), im.events, "", now)
	if err != nil {
		return nil, err
	}
	if err := commitAppend(ctx, r, h, actor, append(im.objs, run)); err != nil {
		return nil, err
	}
	im.res.AppendResult = AppendResult{Ref: h.ref, Run: run.ID.String(), Event: im.events[len(im.events)-1].ID.String(), Created: !h.exists()}
	if h.exists() {
		im.res.Previous = h.id().String()
	}
	return im.res, nil
}

// report passes a progress report to the caller, if it asked for them.
func (im *importer) report(phase string, done, total int) {
	if im.progress != nil {
		im.progress(plumbing.GCProgress{Phase: phase, Done: done, Total: total})
	}
}

// read parses every line, stopping at the first bad one.
func (im *importer) read(ctx context.Context, in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(br, MaxImportLine)
		if errors.Is(err, io.EOF) && line == nil {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: line %d: %w", ErrBadImport, n, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if len(im.events) >= MaxImportEvents {
				return fmt.Errorf("%w: line %d: more than %d events", ErrBadImport, n, MaxImportEvents)
			}
			if lerr := im.line(line); lerr != nil {
				return fmt.Errorf("%w: line %d: %w", ErrBadImport, n, lerr)
			}
			im.report("reading events", len(im.events), 0)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// readLine reads one LF-terminated line without the LF (and a CR before
// it), refusing lines longer than max before buffering them whole.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 {
			return nil, fmt.Errorf("line longer than %d bytes", max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(line) == 0 {
				return nil, io.EOF
			}
			return line, io.EOF
		default:
			return nil, err
		}
	}
}

// line turns one line into its blobs and event.
func (im *importer) line(data []byte) error {
	spec, err := ParseStrict(data, MaxImportLine)
	if err != nil {
		return err
	}
	return im.spec(spec)
}

// spec turns one event spec (a parsed line) into its blobs and event.
func (im *importer) spec(spec objects.Value) error {
	if spec.Kind != objects.KindObject {
		return fmt.Errorf("an event is a JSON object, not a JSON %s", spec.Kind)
	}
	localID, err := im.localID(spec)
	if err != nil {
		return err
	}
	parents := im.prev
	if v, ok := spec.Get("parents"); ok {
		if parents, err = im.refsList("parents", v); err != nil {
			return err
		}
	}
	var causal []objects.OID
	if v, ok := spec.Get("causal"); ok {
		if causal, err = im.refsList("causal", v); err != nil {
			return err
		}
	}
	set := []objects.Member{{Key: "parent_ids", Value: OIDValues(parents)}}
	if len(causal) > 0 {
		set = append(set, objects.Member{Key: "causal_ids", Value: OIDValues(causal)})
	}
	body := derivePayload(spec, nil, map[string]bool{"id": true, "parents": true, "causal": true})
	payload, blobs, err := im.sr.eventSpec(body, importReserved, set)
	if err != nil {
		return err
	}
	if err := objects.CheckMetrics(payload); err != nil {
		return err
	}
	ev, err := objects.NewJSONObject(im.sr.algo, objects.TypeEvent, 1, payload)
	if err != nil {
		return err
	}
	if im.holds(ev.ID) {
		return fmt.Errorf("event %s is already in the run (an identical line)", ev.ID)
	}
	de, err := DecodeEvent(ev)
	if err != nil {
		return err
	}
	im.inRun[ev.ID] = true
	if localID != "" {
		im.local[localID] = ev.ID
		im.res.IDs[localID] = ev.ID.String()
	}
	im.objs = append(append(im.objs, blobs...), ev)
	im.events = append(im.events, de)
	im.res.Events = append(im.res.Events, ev.ID.String())
	im.prev = []objects.OID{ev.ID}
	return nil
}

// holds reports whether the run holds event id: one this import read, or
// one of the run's own (found in its list's bytes: objects.RunBody.Index).
func (im *importer) holds(id objects.OID) bool {
	return im.inRun[id] || im.h.holds(id)
}

// localID reads and checks the optional "id".
func (im *importer) localID(spec objects.Value) (string, error) {
	v, ok := spec.Get("id")
	if !ok {
		return "", nil
	}
	if v.Kind != objects.KindString || v.Str == "" || len(v.Str) > MaxImportLocalID {
		return "", fmt.Errorf(`"id" must be a non-empty string of at most %d bytes`, MaxImportLocalID)
	}
	if _, dup := im.local[v.Str]; dup {
		return "", fmt.Errorf("id %q is used twice", v.Str)
	}
	return v.Str, nil
}

// refsList resolves a list of local ids or event oids of the run.
func (im *importer) refsList(key string, v objects.Value) ([]objects.OID, error) {
	if v.Kind != objects.KindArray {
		return nil, fmt.Errorf("%q must be a list of ids", key)
	}
	out := make([]objects.OID, 0, len(v.Array))
	seen := map[objects.OID]bool{}
	for i, e := range v.Array {
		if e.Kind != objects.KindString {
			return nil, fmt.Errorf("%s[%d] is not a string", key, i)
		}
		id, ok := im.local[e.Str]
		if !ok {
			oid, err := objects.ParseOID(e.Str)
			if err != nil || !im.holds(oid) {
				return nil, fmt.Errorf("%s[%d]: %q is neither the id of an earlier line nor an event of the run", key, i, e.Str)
			}
			id = oid
		}
		if seen[id] {
			return nil, fmt.Errorf("%s[%d]: %q is named twice", key, i, e.Str)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}
