package runs

import (
	"path"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
)

// FieldChange is one field that differs between two aligned events. Old
// and New are the JSON values (string, number, bool, list) or nil when the
// field is absent on that side.
type FieldChange struct {
	Field string `json:"field"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// maxCommandChars bounds the command line shown for an event.
const maxCommandChars = 200

// alignKey is what two events must share to be "matched" by Align: the
// kind, the model or tool, and for a recorded command the program run.
func alignKey(e *Event) string {
	return e.Kind + "\x00" + e.Label() + "\x00" + eventProgram(e)
}

// MissingStep is the tool path entry of an event beyond the shallow
// boundary (not stored, so its tool is unknown).
const MissingStep = "(missing)"

// toolStep is one entry of a run's tool path: the model or tool, with the
// program for a recorded command ("shell:go").
func toolStep(e *Event) string {
	if e.Missing {
		return MissingStep
	}
	if p := eventProgram(e); p != "" {
		return e.Label() + ":" + p
	}
	return e.Label()
}

// eventArgv returns attributes.argv when it is a list of strings.
func eventArgv(e *Event) []string {
	l, ok := e.Attributes.Get("argv")
	if !ok || l.Kind != objects.KindArray {
		return nil
	}
	out := make([]string, 0, len(l.Array))
	for _, s := range l.Array {
		if s.Kind != objects.KindString {
			return nil
		}
		out = append(out, s.Str)
	}
	return out
}

// eventProgram names what a recorded command ran: the base name of
// argv[0]; for a shell, the first word of its -c script or the script file
// it runs, which is what a reader recognises ("go", "sed", "test.sh").
func eventProgram(e *Event) string {
	av := eventArgv(e)
	if len(av) == 0 {
		return ""
	}
	name := path.Base(av[0])
	switch name {
	case "sh", "bash", "dash", "zsh":
		switch {
		case len(av) >= 3 && av[1] == "-c":
			if f := strings.Fields(av[2]); len(f) > 0 {
				return path.Base(f[0])
			}
		case len(av) >= 2 && !strings.HasPrefix(av[1], "-"):
			return path.Base(av[1]) // sh test.sh runs test.sh
		}
	}
	return name
}

// eventCommand is the recorded argv as a shell command line, bounded.
func eventCommand(e *Event) string {
	av := eventArgv(e)
	if len(av) == 0 {
		return ""
	}
	s := ShellQuote(av)
	if len(s) > maxCommandChars {
		s = s[:maxCommandChars] + "..."
	}
	return s
}

// eventExitCode returns attributes.exit_code as written by tine record.
func eventExitCode(e *Event) (int64, bool) {
	v, ok := e.Attributes.Get("exit_code")
	if !ok {
		return 0, false
	}
	f, ok := Number(v)
	return int64(f), ok
}

// eventChanges lists the fields of an aligned pair that differ, in a fixed
// order: identity (kind, model, provider, tool, command, cwd), outcome
// (exit code, gate verdict, error, score), meters (cost, duration, tokens and each usage
// dimension) and the blobs (input, output, artifact). Timestamps are not
// compared: two runs of the same step never share them.
func eventChanges(a, b *Event) []FieldChange {
	out := []FieldChange{}
	addStr := func(field, x, y string) {
		if x != y {
			out = append(out, FieldChange{Field: field, Old: diffStr(x), New: diffStr(y)})
		}
	}
	addNum := func(field string, x, y float64, hx, hy bool) {
		if hx != hy || x != y {
			out = append(out, FieldChange{Field: field, Old: diffNum(x, hx), New: diffNum(y, hy)})
		}
	}
	if a.Missing || b.Missing {
		if a.Missing != b.Missing {
			out = append(out, FieldChange{Field: "missing", Old: a.Missing, New: b.Missing})
		}
		return out
	}
	addStr("kind", a.Kind, b.Kind)
	addStr("model", a.Model, b.Model)
	addStr("provider", Str(a.Value, "provider"), Str(b.Value, "provider"))
	addStr("tool", a.Tool, b.Tool)
	addStr("command", eventCommand(a), eventCommand(b))
	addStr("cwd", Str(a.Attributes, "cwd"), Str(b.Attributes, "cwd"))
	xa, hxa := eventExitCode(a)
	xb, hxb := eventExitCode(b)
	addNum("exit_code", float64(xa), float64(xb), hxa, hxb)
	// A gate evidence event's verdict (gate runs diff constraint by
	// constraint: the same tool "gate:<id>" aligns across two runs).
	addStr("verdict", Str(a.Attributes, "verdict"), Str(b.Attributes, "verdict"))
	addStr("error", a.Error, b.Error)
	sa, sb := 0.0, 0.0
	if a.Score != nil {
		sa = *a.Score
	}
	if b.Score != nil {
		sb = *b.Score
	}
	addNum("score", sa, sb, a.Score != nil, b.Score != nil)
	addNum("cost", a.Cost, b.Cost, true, true)
	addNum("duration", a.Duration, b.Duration, true, true)
	addNum("tokens", a.Tokens(), b.Tokens(), true, true)
	for _, dim := range usageDims(a, b) {
		x, hx := a.Usage[dim]
		y, hy := b.Usage[dim]
		addNum("usage."+dim, x, y, hx, hy)
	}
	addStr("input_blob", diffOID(a.InputBlob), diffOID(b.InputBlob))
	addStr("output_blob", diffOID(a.OutputBlob), diffOID(b.OutputBlob))
	addStr("artifact_blob", diffOID(a.ArtifactBlob), diffOID(b.ArtifactBlob))
	return out
}

// usageDims is the sorted union of the usage dimensions of a and b.
func usageDims(a, b *Event) []string {
	seen := map[string]bool{}
	for k := range a.Usage {
		seen[k] = true
	}
	for k := range b.Usage {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func diffStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func diffNum(f float64, ok bool) any {
	if !ok {
		return nil
	}
	return f
}

func diffOID(id objects.OID) string {
	if id.IsZero() {
		return ""
	}
	return id.String()
}

// ShellQuote spells argv as a POSIX shell command line, single-quoting any
// argument that is not made of plainly safe characters.
func ShellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
