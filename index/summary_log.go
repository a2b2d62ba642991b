package index

import (
	"strings"

	"github.com/tinehq/tine/objects"
)

// MaxArgvWords bounds the argv words an event summary keeps; a longer argv
// (or one over MaxStringBytes in all) leaves the summary inexact.
const MaxArgvWords = 256

// logFields fills the fields `tine log` shows that the run table does not
// fold (model, tool, error, argv words) and sets Exact when every field log
// shows is held whole and reads as the porcelain reads the event object.
// Whatever the catalog had to cut or could not parse the way the porcelain
// does leaves Exact false, and log reads that event instead: the summary
// is then still right for the run table, never guessed for log.
func logFields(o *objects.Object, s *EventSummary) {
	v := o.Value
	exact := len(strMember(v, "kind")) <= MaxLabelBytes
	s.Model, s.Tool = strMember(v, "model"), strMember(v, "tool")
	if len(s.Model) > MaxStringBytes || len(s.Tool) > MaxStringBytes {
		s.Model, s.Tool, exact = "", "", false
	}
	if ev, ok := v.Get("error"); ok && ev.Truthy() {
		if ev.Kind == objects.KindString {
			s.Error = ev.Str
		} else if b, err := objects.CanonV3(ev); err == nil {
			s.Error = string(b)
		}
		if len(s.Error) > MaxStringBytes {
			s.Error, exact = "", false
		}
	}
	attrs, _ := v.Get("attributes")
	if l, ok := attrs.Get("argv"); ok && l.Kind == objects.KindArray {
		var ok bool
		if s.Words, ok = argvWords(l); !ok {
			exact = false
		}
	}
	for _, k := range []string{"cost", "duration", "time_unix", "score"} {
		if m, ok := v.Get(k); ok && !plainNumber(m) {
			exact = false
		}
	}
	if _, ok := v.Get("score"); !ok {
		if m, ok := attrs.Get("score"); ok && !plainNumber(m) {
			exact = false
		}
	}
	if u, ok := v.Get("usage"); ok && u.Kind == objects.KindObject {
		for _, k := range []string{"total", "input", "output"} {
			if m, ok := u.Get(k); ok && !plainNumber(m) {
				exact = false
			}
		}
		// The porcelain skips a total that is not a number and sums
		// input and output; the summary counts it as 0 tokens.
		if t, ok := u.Get("total"); ok && t.Kind != objects.KindInt && t.Kind != objects.KindFloat {
			exact = false
		}
	}
	s.Exact = exact && parentsParse(o)
}

// plainNumber reports whether v reads the same through the catalog's
// finiteNumber and meter as through the porcelain's Number and Meter:
// anything but a JSON number too large for a float64 (a string meter is
// parsed alike by both, other kinds are absent to both).
func plainNumber(v objects.Value) bool {
	if v.Kind != objects.KindInt && v.Kind != objects.KindFloat {
		return true
	}
	_, ok := finiteNumber(v)
	return ok
}

// argvWords returns attributes.argv as log shows it: its words when every
// element is a string (nil when one is not: log then shows no command),
// and false when it is too large to keep whole.
func argvWords(l objects.Value) ([]string, bool) {
	total := 0
	for _, w := range l.Array {
		if w.Kind != objects.KindString {
			return nil, true
		}
		total += len(w.Str)
	}
	if len(l.Array) > MaxArgvWords || total > MaxStringBytes {
		return nil, false
	}
	out := make([]string, len(l.Array))
	for i, w := range l.Array {
		out[i] = w.Str
	}
	return out, true
}

// parentsParse reports whether parent_ids is absent, null, or a list of
// event oids of the object's hash profile: what the catalog can position.
func parentsParse(o *objects.Object) bool {
	ps, ok := o.Value.Get("parent_ids")
	if !ok || ps.Kind == objects.KindNull {
		return true
	}
	if ps.Kind != objects.KindArray {
		return false
	}
	for _, p := range ps.Array {
		if p.Kind != objects.KindString {
			return false
		}
		id, err := objects.ParseOIDFor(o.ID.Algo, p.Str)
		if err != nil || id.Type != objects.TypeEvent {
			return false
		}
	}
	return true
}

// runTips returns a run payload's tips and whether the run's log fields
// read as the porcelain reads them: status absent, not a string, or a
// string of 1..MaxLabelBytes bytes (the catalog says "running" for an
// empty one, the porcelain ""); events absent, null or a list the catalog
// parses whole; tips absent, null or a list of event oids.
func runTips(o *runView) ([]objects.OID, bool) {
	exact := o.wholeList
	if st, ok := o.members.Get("status"); ok && st.Kind == objects.KindString && (st.Str == "" || len(st.Str) > MaxLabelBytes) {
		exact = false
	}
	l, ok := o.members.Get("tips")
	if !ok || l.Kind == objects.KindNull {
		return nil, exact
	}
	if l.Kind != objects.KindArray {
		return nil, false
	}
	tips := make([]objects.OID, 0, len(l.Array))
	for _, t := range l.Array {
		if t.Kind != objects.KindString {
			return nil, false
		}
		id, err := objects.ParseOIDFor(o.id.Algo, t.Str)
		if err != nil || id.Type != objects.TypeEvent {
			return nil, false
		}
		tips = append(tips, id)
	}
	return tips, exact
}

// runFork returns o's forked_from as the porcelain reads it (runs.Run's
// ForkedFrom: a run and event that are not oids read as zero) and
// whether the catalog can hold it whole: its oids in o's hash and of the
// types the file keeps there (a run, an event), its reason within
// MaxStringBytes.
func runFork(o *runView) (*RunFork, bool) {
	ff, ok := o.members.Get("forked_from")
	if !ok || ff.Kind != objects.KindObject {
		return nil, true
	}
	f := &RunFork{}
	for _, m := range []struct {
		key  string
		want objects.Type
		to   *objects.OID
	}{{"run", objects.TypeRun, &f.Run}, {"event", objects.TypeEvent, &f.Event}} {
		s, ok := ff.Get(m.key)
		if !ok || s.Kind != objects.KindString || s.Str == "" {
			continue
		}
		id, err := objects.ParseOID(s.Str)
		if err != nil {
			continue
		}
		if id.Type != m.want || id.Algo != o.id.Algo {
			return nil, false
		}
		*m.to = id
	}
	if s, ok := ff.Get("reason"); ok && s.Kind == objects.KindString {
		if len(s.Str) > MaxStringBytes {
			return nil, false
		}
		f.Reason = strings.Clone(s.Str) // not the whole run body
	}
	return f, true
}
