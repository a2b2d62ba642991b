package plumbing

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Bounds of an update-ref --stdin stream, checked while reading.
const (
	// MaxStdinBytes bounds the whole stream.
	MaxStdinBytes = 1 << 20
	// MaxStdinLines bounds the number of lines (commands, comments, blanks).
	MaxStdinLines = 10000
	// MaxStdinLine bounds one line, LF excluded.
	MaxStdinLine = 4096
)

// UpdateRefStdinOptions configures UpdateRefStdin.
//
// The stream is UTF-8 text, one command per LF-terminated line (a final
// line may lack its LF), fields separated by single spaces:
//
//	create REF NEW        REF must not exist
//	update REF NEW [OLD]  without OLD any current value (or none) is accepted
//	delete REF [OLD]      REF must exist; with OLD it must hold OLD
//	verify REF [OLD]      REF must hold OLD; without OLD it must not exist
//	# comment             blank lines and lines starting with # are ignored
//
// NEW and OLD are revisions; OLD may also be "absent" (or "0") for "must not
// exist". A CR, a tab or a doubled space is a syntax error, as is naming a
// ref twice. The whole stream is parsed and resolved before anything is
// locked, then applied as one refs transaction: all commands take effect or
// none does.
type UpdateRefStdinOptions struct {
	// Input is the command stream.
	Input io.Reader
	// Actor is the reflog actor; empty means DefaultActor.
	Actor string
}

// UpdateRefStdinResult is what `tine update-ref --stdin` reports: one entry
// per command, in stream order.
type UpdateRefStdinResult struct {
	Changes []RefChange `json:"changes"`
}

// UpdateRefStdin applies an update-ref transaction stream (see
// UpdateRefStdinOptions). Errors name the line number; a failed
// compare-and-swap is a *refs.StaleError and changes nothing.
func UpdateRefStdin(ctx context.Context, r *Repo, opt UpdateRefStdinOptions) (*UpdateRefStdinResult, error) {
	if opt.Input == nil {
		return nil, fmt.Errorf("update-ref --stdin: no input: %w", ErrBadInput)
	}
	lines, err := readCommandLines(opt.Input)
	if err != nil {
		return nil, err
	}
	tx := r.refs.NewTransaction(actorOr(opt.Actor))
	res := &UpdateRefStdinResult{Changes: []RefChange{}}
	seen := map[string]int{}
	for i, line := range lines {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := r.stageCommand(ctx, tx, line)
		if err != nil {
			return nil, fmt.Errorf("update-ref --stdin: line %d: %w", i+1, err)
		}
		if prev, dup := seen[c.Ref]; dup {
			return nil, fmt.Errorf("update-ref --stdin: line %d: ref %s already named on line %d: %w", i+1, c.Ref, prev, ErrBadInput)
		}
		seen[c.Ref] = i + 1
		res.Changes = append(res.Changes, c)
	}
	if len(res.Changes) == 0 {
		return res, nil
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("update-ref --stdin: %w", err)
	}
	return res, nil
}

// readCommandLines reads the stream within its bounds and splits it.
func readCommandLines(in io.Reader) ([]string, error) {
	br := bufio.NewReaderSize(io.LimitReader(in, MaxStdinBytes+1), 64<<10)
	var lines []string
	total := 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(bytes.TrimSuffix(line, []byte("\n"))) > MaxStdinLine {
			return nil, fmt.Errorf("update-ref --stdin: line %d is longer than %d bytes: %w", len(lines)+1, MaxStdinLine, ErrBadInput)
		}
		total += len(line)
		if total > MaxStdinBytes {
			return nil, fmt.Errorf("update-ref --stdin: input is larger than %d bytes: %w", MaxStdinBytes, ErrBadInput)
		}
		if len(line) > 0 {
			if len(lines) == MaxStdinLines {
				return nil, fmt.Errorf("update-ref --stdin: more than %d lines: %w", MaxStdinLines, ErrBadInput)
			}
			lines = append(lines, strings.TrimSuffix(string(line), "\n"))
		}
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return nil, fmt.Errorf("update-ref --stdin: %w", err)
		}
	}
}

// stageCommand parses one command line and adds it to tx.
func (r *Repo) stageCommand(ctx context.Context, tx *refs.Transaction, line string) (RefChange, error) {
	if strings.ContainsAny(line, "\r\t") {
		return RefChange{}, fmt.Errorf("%q: CR or tab in command: %w", line, ErrBadInput)
	}
	f := strings.Split(line, " ")
	for _, s := range f {
		if s == "" {
			return RefChange{}, fmt.Errorf("%q: fields are separated by single spaces: %w", line, ErrBadInput)
		}
	}
	arity := map[string][2]int{"create": {3, 3}, "update": {3, 4}, "delete": {2, 3}, "verify": {2, 3}}
	a, ok := arity[f[0]]
	if !ok {
		return RefChange{}, fmt.Errorf("%q: unknown command %q (want create, update, delete or verify): %w", line, f[0], ErrBadInput)
	}
	if len(f) < a[0] || len(f) > a[1] {
		return RefChange{}, fmt.Errorf("%q: %s takes %d to %d arguments: %w", line, f[0], a[0]-1, a[1]-1, ErrBadInput)
	}
	name, err := refs.NormalizeName(f[1])
	if err != nil {
		return RefChange{}, err
	}
	c := RefChange{Op: f[0], Ref: name}
	var newID objects.OID
	if f[0] == "create" || f[0] == "update" {
		if newID, err = r.Resolve(ctx, f[2]); err != nil {
			return RefChange{}, fmt.Errorf("new value of %s: %w", name, err)
		}
		c.New = newID.String()
	}
	var oldArg string
	switch f[0] {
	case "update":
		if len(f) == 4 {
			oldArg = f[3]
		}
	case "delete", "verify":
		if len(f) == 3 {
			oldArg = f[2]
		}
	}
	dflt := map[string]refs.Expect{"create": refs.ExpectAbsent, "update": refs.ExpectAny, "delete": refs.ExpectExists, "verify": refs.ExpectAbsent}[f[0]]
	if f[0] == "delete" && (oldArg == oldAbsent || oldArg == "0") {
		return RefChange{}, fmt.Errorf("delete %s: a deleted ref must exist: %w", name, ErrBadInput)
	}
	expect, old, err := r.expectation(ctx, oldArg, f[0] == "create", dflt)
	if err != nil {
		return RefChange{}, fmt.Errorf("old value of %s: %w", name, err)
	}
	if oldArg == "" && f[0] == "verify" {
		old = ""
	}
	c.Old = old
	switch f[0] {
	case "create", "update":
		tx.Update(name, newID, expect)
	case "delete":
		tx.Delete(name, expect)
	case "verify":
		tx.Verify(name, expect)
	}
	return c, nil
}
