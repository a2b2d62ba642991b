package runs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// Errors of the porcelain layer. Each is wrapped with the run, event or ref
// it concerns; test with errors.Is.
var (
	// ErrNotRun means a revision or oid names an object that is not a run.
	ErrNotRun = errors.New("not a run")
	// ErrNotEvent means an oid names an object that is not an event.
	ErrNotEvent = errors.New("not an event")
	// ErrEventNotInRun means an event is not part of the run it was used with.
	ErrEventNotInRun = errors.New("event is not in the run")
	// ErrBeyondShallow means an operation needs an event a shallow fetch
	// left out (SPEC §2.7): the fix is to fetch more history. It is
	// plumbing's, so a REV~N walk that plumbing resolves says the same.
	ErrBeyondShallow = plumbing.ErrBeyondShallow
	// ErrBadEvent means an event supplied by the user was refused.
	ErrBadEvent = errors.New("bad event")
	// ErrBadImport means an import stream was refused; the error names the line.
	ErrBadImport = errors.New("bad import stream")
	// ErrRefExists means a ref that must be created already exists.
	ErrRefExists = errors.New("ref already exists")
	// ErrNoCommand means tine record was given no command to run.
	ErrNoCommand = errors.New("no command to record")
	// ErrCommandNotText means a word of the command to record is not
	// valid UTF-8: an event holds its command as JSON text, which cannot
	// keep those bytes, and a command recorded otherwise than it ran
	// would replay as another command.
	ErrCommandNotText = errors.New("the command's words must be valid UTF-8 to be recorded")
	// ErrCommandNotStarted means the recorded command could not be started
	// (not found, not executable); the CLI exits 127 like a shell.
	ErrCommandNotStarted = errors.New("command could not be started")
	// ErrNotRunning means an append met a run that is paused, completed or
	// failed; tine resume makes it running again.
	ErrNotRunning = errors.New("run is not running")
	// ErrNotRunRef means a ref outside heads/ and experiments/ was named for
	// a porcelain run write.
	ErrNotRunRef = errors.New("runs are recorded under heads/ or experiments/ only")
	// ErrBadStatus means a run status outside running, paused, completed
	// and failed.
	ErrBadStatus = errors.New("status must be running, paused, completed or failed")
)

// Status values of a run (SPEC §1.5: an absent status means running).
const (
	StatusRunning   = "running"
	StatusPaused    = "paused"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Run is a loaded run object with its events decoded.
type Run struct {
	// ID is the run's oid. For a derived run (Stored false) it is the oid
	// the run would have if written.
	ID objects.OID
	// Object is the run object itself.
	Object *objects.Object
	// Events are the run's events in the run's order (parents first).
	Events []*Event
	// Roots and Tips are the payload's roots and tips.
	Roots, Tips []objects.OID
	// Status is the payload's status, "running" when absent.
	Status string
	// CreatedAt is created_at in Unix seconds; HasCreatedAt says whether the
	// payload holds a numeric created_at.
	CreatedAt    float64
	HasCreatedAt bool
	// ForkedFrom is the payload's forked_from, nil for a run that is no fork.
	ForkedFrom *ForkedFrom
	// Stored is false for a run derived by ResolveRun (REV~N) that no
	// stored object holds.
	Stored bool
	// Value is the run payload.
	Value objects.Value

	index map[objects.OID]int
}

// ForkedFrom is a fork's origin: the source run, the fork event and why.
type ForkedFrom struct {
	Run    objects.OID `json:"run"`
	Event  objects.OID `json:"event"`
	Reason string      `json:"reason,omitempty"`
}

// Event is one decoded event of a run.
type Event struct {
	// ID is the event's oid.
	ID objects.OID
	// Object is the event object; nil when Missing.
	Object *objects.Object
	// Missing is set for an event of the run that is not stored locally
	// (a shallow boundary, SPEC §2.7); only ID is known then.
	Missing bool
	// Kind, Model, Tool and Error are the conventional string fields.
	Kind, Model, Tool, Error string
	// Parents and Causal are parent_ids and causal_ids.
	Parents, Causal []objects.OID
	// Cost and Duration are the meters (0 when absent, SPEC §1.5.2);
	// TimeUnix is time_unix and HasTime says whether it is present.
	Cost, Duration, TimeUnix float64
	HasTime                  bool
	// Usage holds the numeric members of usage.
	Usage map[string]float64
	// Score is the event's "score" field, or attributes.score; nil if none.
	Score *float64
	// InputBlob, OutputBlob and ArtifactBlob are the blob links (zero when
	// absent).
	InputBlob, OutputBlob, ArtifactBlob objects.OID
	// Attributes is the attributes member (the zero Value when absent).
	Attributes objects.Value
	// Value is the event payload.
	Value objects.Value
}

// Tokens returns the event's token count: usage.total, else input+output.
func (e *Event) Tokens() float64 {
	if t, ok := e.Usage["total"]; ok {
		return t
	}
	return e.Usage["input"] + e.Usage["output"]
}

// Label returns the model for a model step, else the tool, else the kind.
func (e *Event) Label() string {
	switch {
	case e.Model != "":
		return e.Model
	case e.Tool != "":
		return e.Tool
	}
	return e.Kind
}

// Event returns the run's event named id.
func (r *Run) Event(id objects.OID) (*Event, bool) {
	i, ok := r.index[id]
	if !ok {
		return nil, false
	}
	return r.Events[i], true
}

// Position returns the index of event id in Events, or -1.
func (r *Run) Position(id objects.OID) int {
	if i, ok := r.index[id]; ok {
		return i
	}
	return -1
}

// Totals sums the run's events.
func (r *Run) Totals() Totals {
	t := Totals{Events: len(r.Events)}
	for _, e := range r.Events {
		t.Cost += e.Cost
		t.Duration += e.Duration
		t.Tokens += e.Tokens()
		if e.Missing {
			t.Missing++
		}
	}
	return t
}

// Totals are the sums over a run's events.
type Totals struct {
	Events   int     `json:"events"`
	Missing  int     `json:"missing,omitempty"`
	Cost     float64 `json:"cost"`
	Duration float64 `json:"duration"`
	Tokens   float64 `json:"tokens"`
}

// LoadRun reads run id and every event it lists through g (each read
// re-verifies the oid). An event that is absent is kept as a Missing event;
// a corrupt one is an error naming it.
func LoadRun(ctx context.Context, g objects.Getter, id objects.OID) (*Run, error) {
	if id.Type != objects.TypeRun {
		return nil, fmt.Errorf("%s: %w", id, ErrNotRun)
	}
	r, err := readRun(ctx, g, id)
	if err != nil {
		return nil, err
	}
	if err := LoadEvents(ctx, g, r, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// readRun reads stored run id through g and decodes it, without its
// events.
func readRun(ctx context.Context, g objects.Getter, id objects.OID) (*Run, error) {
	o, err := g.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", id, err)
	}
	return RunFromObject(o)
}

// RunFromObject decodes a run payload without its events. The payload was
// validated when the object was read (links), so list members are oids.
func RunFromObject(o *objects.Object) (*Run, error) {
	if o.Type != objects.TypeRun {
		return nil, fmt.Errorf("%s: %w", o.ID, ErrNotRun)
	}
	v := o.Value
	r := &Run{ID: o.ID, Object: o, Value: v, Status: StatusRunning, Stored: true}
	if s, ok := v.Get("status"); ok && s.Kind == objects.KindString {
		r.Status = s.Str
	}
	if c, ok := v.Get("created_at"); ok {
		r.CreatedAt, r.HasCreatedAt = Meter(c)
	}
	var err error
	if r.Roots, err = oidList(v, "roots"); err != nil {
		return nil, fmt.Errorf("run %s: %w", o.ID, err)
	}
	if r.Tips, err = oidList(v, "tips"); err != nil {
		return nil, fmt.Errorf("run %s: %w", o.ID, err)
	}
	if ff, ok := v.Get("forked_from"); ok && ff.Kind == objects.KindObject {
		f := &ForkedFrom{}
		f.Run, _ = OIDField(ff, "run")
		f.Event, _ = OIDField(ff, "event")
		if s, ok := ff.Get("reason"); ok && s.Kind == objects.KindString {
			f.Reason = s.Str
		}
		r.ForkedFrom = f
	}
	return r, nil
}

// EventIDs returns the payload's events list.
func (r *Run) EventIDs() []objects.OID {
	ids, _ := oidList(r.Value, "events")
	return ids
}

// Reindex rebuilds the position index after Events changed.
func (r *Run) Reindex() {
	r.index = make(map[objects.OID]int, len(r.Events))
	for i, e := range r.Events {
		r.index[e.ID] = i
	}
}

// DecodeEvent decodes an event object's conventional fields.
func DecodeEvent(o *objects.Object) (*Event, error) {
	if o.Type != objects.TypeEvent {
		return nil, fmt.Errorf("%s: %w", o.ID, ErrNotEvent)
	}
	v := o.Value
	e := &Event{ID: o.ID, Object: o, Value: v}
	e.Kind, e.Model, e.Tool = Str(v, "kind"), Str(v, "model"), Str(v, "tool")
	if ev, ok := v.Get("error"); ok && ev.Truthy() {
		if ev.Kind == objects.KindString {
			e.Error = ev.Str
		} else if b, err := objects.CanonV3(ev); err == nil {
			e.Error = string(b)
		}
	}
	var err error
	if e.Parents, err = oidList(v, "parent_ids"); err != nil {
		return nil, fmt.Errorf("event %s: %w", o.ID, err)
	}
	if e.Causal, err = oidList(v, "causal_ids"); err != nil {
		return nil, fmt.Errorf("event %s: %w", o.ID, err)
	}
	if c, ok := v.Get("cost"); ok {
		e.Cost, _ = Meter(c)
	}
	if d, ok := v.Get("duration"); ok {
		e.Duration, _ = Meter(d)
	}
	if t, ok := v.Get("time_unix"); ok {
		e.TimeUnix, e.HasTime = Meter(t)
	}
	if u, ok := v.Get("usage"); ok && u.Kind == objects.KindObject {
		e.Usage = make(map[string]float64, len(u.Object))
		for _, m := range u.Object {
			if f, ok := Number(m.Value); ok {
				e.Usage[m.Key] = f
			}
		}
	}
	e.Attributes, _ = v.Get("attributes")
	if s, ok := v.Get("score"); ok {
		if f, ok := Number(s); ok {
			e.Score = &f
		}
	} else if s, ok := e.Attributes.Get("score"); ok {
		if f, ok := Number(s); ok {
			e.Score = &f
		}
	}
	e.InputBlob, _ = OIDField(v, "input_blob")
	e.OutputBlob, _ = OIDField(v, "output_blob")
	e.ArtifactBlob, _ = OIDField(v, "artifact_blob")
	return e, nil
}

// Str returns a string member or "".
func Str(v objects.Value, key string) string {
	if s, ok := v.Get(key); ok && s.Kind == objects.KindString {
		return s.Str
	}
	return ""
}

// OIDField returns a truthy string member parsed as an oid.
func OIDField(v objects.Value, key string) (objects.OID, bool) {
	s, ok := v.Get(key)
	if !ok || s.Kind != objects.KindString || s.Str == "" {
		return objects.OID{}, false
	}
	id, err := objects.ParseOID(s.Str)
	return id, err == nil
}

// oidList returns a list member of oids; absent is nil.
func oidList(v memberGetter, key string) ([]objects.OID, error) {
	l, ok := v.Get(key)
	if !ok || l.Kind == objects.KindNull {
		return nil, nil
	}
	if l.Kind != objects.KindArray {
		return nil, fmt.Errorf("%s is not a list", key)
	}
	out := make([]objects.OID, 0, len(l.Array))
	for i, e := range l.Array {
		if e.Kind != objects.KindString {
			return nil, fmt.Errorf("%s[%d] is not an oid", key, i)
		}
		id, err := objects.ParseOID(e.Str)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		out = append(out, id)
	}
	return out, nil
}

// memberGetter reads a member of a JSON object: a parsed payload
// (objects.Value) or a run body split without parsing its events
// (objects.RunBody).
type memberGetter interface {
	Get(key string) (objects.Value, bool)
}

// Number returns a JSON number as a float64.
func Number(v objects.Value) (float64, bool) {
	switch v.Kind {
	case objects.KindInt:
		if v.Big != nil {
			f, _ := new(big.Float).SetInt(v.Big).Float64()
			return f, true
		}
		return float64(v.Int), true
	case objects.KindFloat:
		return v.Float, true
	}
	return 0, false
}

// Meter reads a metric that may be a number or a numeric string (SPEC
// §1.5.2). Validation happened on read; this only converts for display and
// sums, so an unparsable string counts as absent.
func Meter(v objects.Value) (float64, bool) {
	if f, ok := Number(v); ok {
		return f, true
	}
	if v.Kind == objects.KindString && len(v.Str) <= objects.MaxMeterChars {
		f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(v.Str), "_", ""), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
	}
	return 0, false
}
