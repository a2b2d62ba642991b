package index

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Limits of the per-event summaries.
const (
	// MaxParams bounds the parameters kept per event.
	MaxParams = 64
	// MaxParamValueBytes bounds one parameter's value text; a longer value
	// is cut at a UTF-8 boundary (the object keeps the whole value).
	MaxParamValueBytes = 256
	// MaxLabelBytes bounds an event's label (model, tool or kind).
	MaxLabelBytes = 256
)

// Param is one run parameter: a name and its value as text (a JSON
// string as is, a number or boolean in its canonical spelling).
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EventSummary is what the catalog keeps of one event of a run a ref
// names: the fields the run table folds and the history verbs render. It
// is derived from the event object (never authoritative) and is the seed
// of the history index (per-event summaries, like git's commit-graph).
type EventSummary struct {
	ID objects.OID
	// Missing is set for an event a run lists that is not stored (a
	// shallow boundary); nothing else is known about it.
	Missing bool
	// Kind is the payload's kind; Label its model, else tool, else kind.
	Kind, Label string
	// Time is time_unix when HasTime.
	Time    float64
	HasTime bool
	// Cost, Duration and Tokens are the meters (0 when absent); Tokens is
	// usage.total, else usage.input + usage.output.
	Cost, Duration, Tokens float64
	// ExitCode is attributes.exit_code when HasExit.
	ExitCode int64
	HasExit  bool
	// Score is score, else attributes.score, when HasScore.
	Score    float64
	HasScore bool
	// Params are the parameters the event declares (see EventParams),
	// sorted by name.
	Params []Param
	// Argv is a recorded command's attributes.argv joined by spaces, cut
	// to MaxLabelBytes.
	Argv string
	// Model, Tool and Error are the payload's model, tool and error (one
	// that is not a string in canonical JSON); Words is attributes.argv
	// when every element is a string: what `tine log` shows besides the
	// fields above.
	Model, Tool, Error string
	Words              []string
	// Exact reports that every field log shows is held whole and reads as
	// the porcelain reads the object (logFields); log reads the event
	// itself when it is false.
	Exact bool

	// parents are the positions of parent_ids in the catalog's event
	// table (Catalog.Parents); parentIDs holds them while a build reads.
	parents   []int
	parentIDs []objects.OID
}

// RunSummary is a run's row in the run table, folded from its events'
// summaries in the run's order.
type RunSummary struct {
	Run objects.OID
	// Status is the payload's status ("running" when absent).
	Status string
	// CreatedAt is created_at when HasCreatedAt.
	CreatedAt    float64
	HasCreatedAt bool
	// Events and Missing count the run's events and the absent ones.
	Events, Missing int
	// Cost, Duration and Tokens sum the events' meters.
	Cost, Duration, Tokens float64
	// Started and Ended are the smallest and largest event time when
	// HasTime.
	Started, Ended float64
	HasTime        bool
	// Params merge the events' parameters in run order: a later event's
	// value for a name replaces an earlier one's. Sorted by name.
	Params []Param
}

// summarizeEvent extracts an event's summary from its object.
func summarizeEvent(o *objects.Object) EventSummary {
	v := o.Value
	s := EventSummary{ID: o.ID}
	s.Kind = clipText(strMember(v, "kind"), MaxLabelBytes)
	s.Label = s.Kind
	if t := strMember(v, "tool"); t != "" {
		s.Label = t
	}
	if mdl := strMember(v, "model"); mdl != "" {
		s.Label = mdl
	}
	s.Label = clipText(s.Label, MaxLabelBytes)
	s.Cost, _ = meter(v, "cost")
	s.Duration, _ = meter(v, "duration")
	s.Time, s.HasTime = meter(v, "time_unix")
	if u, ok := v.Get("usage"); ok && u.Kind == objects.KindObject {
		if t, ok := u.Get("total"); ok {
			s.Tokens, _ = finiteNumber(t)
		} else {
			in, _ := u.Get("input")
			out, _ := u.Get("output")
			a, _ := finiteNumber(in)
			b, _ := finiteNumber(out)
			s.Tokens = a + b
		}
	}
	attrs, _ := v.Get("attributes")
	if x, ok := attrs.Get("exit_code"); ok && x.Kind == objects.KindInt && x.Big == nil {
		s.ExitCode, s.HasExit = x.Int, true
	}
	if sc, ok := v.Get("score"); ok {
		s.Score, s.HasScore = finiteNumber(sc)
	} else if sc, ok := attrs.Get("score"); ok {
		s.Score, s.HasScore = finiteNumber(sc)
	}
	s.Params = EventParams(v)
	if argv, ok := attrs.Get("argv"); ok && argv.Kind == objects.KindArray {
		parts := make([]string, 0, len(argv.Array))
		for _, a := range argv.Array {
			if a.Kind == objects.KindString {
				parts = append(parts, a.Str)
			}
		}
		s.Argv = clipText(strings.Join(parts, " "), MaxLabelBytes)
	}
	if ps, ok := v.Get("parent_ids"); ok && ps.Kind == objects.KindArray {
		for _, p := range ps.Array {
			if p.Kind != objects.KindString {
				continue
			}
			if id, err := objects.ParseOIDFor(o.ID.Algo, p.Str); err == nil && id.Type == objects.TypeEvent {
				s.parentIDs = append(s.parentIDs, id)
			}
		}
	}
	logFields(o, &s)
	s.detach()
	return s
}

// detach copies s's strings out of the parsed body they were sliced from:
// the parser keeps one string of the whole body and every parsed string
// shares it, so a summary holding one of them would keep the whole event
// (or run) alive as long as the catalog build or log keeps the summary.
func (s *EventSummary) detach() {
	for _, p := range []*string{&s.Kind, &s.Label, &s.Argv, &s.Model, &s.Tool, &s.Error} {
		*p = strings.Clone(*p)
	}
	for i := range s.Params {
		s.Params[i].Name = strings.Clone(s.Params[i].Name)
		s.Params[i].Value = strings.Clone(s.Params[i].Value)
	}
	for i := range s.Words {
		s.Words[i] = strings.Clone(s.Words[i])
	}
}

// EventParams returns the parameters an event payload declares, sorted by
// name and bounded by MaxParams:
//
//   - attributes.params, an object of name -> string, number or boolean
//     (what `tine record --param NAME=VALUE` writes; any event may carry it);
//   - for a loop's init event (kind "loop", attributes.phase "init"), each
//     set bound of attributes.policy as "loop.<bound>" (max_steps, width ...).
//
// Members of other types (objects, lists, null) are not parameters.
func EventParams(v objects.Value) []Param {
	attrs, _ := v.Get("attributes")
	var out []Param
	if ps, ok := attrs.Get("params"); ok && ps.Kind == objects.KindObject {
		for _, m := range ps.Object {
			if t, ok := paramText(m.Value); ok && storable(m.Key) {
				out = append(out, Param{Name: m.Key, Value: t})
			}
		}
	}
	if strMember(v, "kind") == "loop" && strMember(attrs, "phase") == "init" {
		pol, _ := attrs.Get("policy")
		for _, m := range pol.Object {
			if t, ok := paramText(m.Value); ok && storable("loop."+m.Key) {
				out = append(out, Param{Name: "loop." + m.Key, Value: t})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Param) int { return cmp.Compare(a.Name, b.Name) })
	out = slices.CompactFunc(out, func(a, b Param) bool { return a.Name == b.Name })
	return out[:min(len(out), MaxParams)]
}

// paramText spells a scalar parameter value.
func paramText(v objects.Value) (string, bool) {
	switch v.Kind {
	case objects.KindString:
		return clipText(v.Str, MaxParamValueBytes), true
	case objects.KindBool:
		return strconv.FormatBool(v.Bool), true
	case objects.KindInt, objects.KindFloat:
		b, err := objects.CanonV3(v)
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	return "", false
}

// foldRun folds a run's event summaries (in run order) into its row.
func foldRun(run objects.OID, status string, created float64, hasCreated bool, events []*EventSummary) RunSummary {
	rs := RunSummary{Run: run, Status: status, CreatedAt: created, HasCreatedAt: hasCreated, Events: len(events)}
	params := map[string]string{}
	for _, e := range events {
		if e.Missing {
			rs.Missing++
			continue
		}
		rs.Cost += e.Cost
		rs.Duration += e.Duration
		rs.Tokens += e.Tokens
		if e.HasTime {
			if !rs.HasTime || e.Time < rs.Started {
				rs.Started = e.Time
			}
			if !rs.HasTime || e.Time > rs.Ended {
				rs.Ended = e.Time
			}
			rs.HasTime = true
		}
		for _, p := range e.Params {
			params[p.Name] = p.Value
		}
	}
	for name, val := range params {
		rs.Params = append(rs.Params, Param{Name: name, Value: val})
	}
	slices.SortFunc(rs.Params, func(a, b Param) int { return cmp.Compare(a.Name, b.Name) })
	return rs
}

// runStatus returns a run payload's status and created_at (SPEC §3.5: an
// absent status means running).
func runStatus(o *runView) (string, float64, bool) {
	status := ""
	if s, ok := o.members.Get("status"); ok && s.Kind == objects.KindString {
		status = s.Str
	}
	if status == "" {
		status = "running"
	}
	status = strings.Clone(clipText(status, MaxLabelBytes)) // not the whole run body: see detach
	m, ok := o.members.Get("created_at")
	if !ok {
		return status, 0, false
	}
	created, ok := meterValue(m)
	return status, created, ok
}

// strMember returns a string member of v, or "".
func strMember(v objects.Value, key string) string {
	if s, ok := v.Get(key); ok && s.Kind == objects.KindString {
		return s.Str
	}
	return ""
}

// meter reads a number or numeric string member (SPEC §3.5 metrics: the
// meters accept numeric strings); anything else is absent.
func meter(v objects.Value, key string) (float64, bool) {
	m, ok := v.Get(key)
	if !ok {
		return 0, false
	}
	return meterValue(m)
}

// meterValue is meter on the member's value.
func meterValue(m objects.Value) (float64, bool) {
	if f, ok := finiteNumber(m); ok {
		return f, true
	}
	if m.Kind == objects.KindString && len(m.Str) <= objects.MaxMeterChars {
		f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(m.Str), "_", ""), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
	}
	return 0, false
}

// clipText cuts s to at most n bytes at a UTF-8 boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// utf8RuneStart reports whether b starts a UTF-8 sequence.
func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
