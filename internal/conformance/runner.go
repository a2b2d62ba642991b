package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// The statuses of a scored case (report.schema.json).
const (
	StatusPass        = "pass"
	StatusFail        = "fail"
	StatusRepaired    = "repaired"
	StatusSkip        = "skip"
	StatusUnsupported = "unsupported"
)

// Adapter answers protocol requests. *Handler is the in-process adapter;
// a client of an adapter process satisfies it too.
type Adapter interface {
	Handle(req Request) Response
}

// opSupporter is implemented by adapters that can say up front that an op is
// unimplemented, so the runner need not assemble a large input just to hear
// "unsupported" back.
type opSupporter interface {
	Supports(op string) bool
}

// Runner scores a suite against an adapter, as OpenTine's reference runner
// does.
type Runner struct {
	Suite   *Suite
	Adapter Adapter
	// Level is 1 (reject parity) or 2 (reason codes too).
	Level int
	// Capabilities the run declares (wtf8, zlib, ed25519); a case that
	// requires another is skipped.
	Capabilities []string
	// CompatRoot is the directory path inputs are relative to; "" when the
	// compat fixtures are not available (their cases are skipped).
	CompatRoot string
	// Filter, when set, selects the cases to run; the rest are left out of
	// the report entirely.
	Filter func(Case) bool
}

// Run asks the adapter every selected case, 01-selftest first, then applies
// the pair checks and returns the scorecard.
func (r *Runner) Run() *Report {
	var selected []Case
	for _, c := range r.Suite.Cases {
		if c.Family == "01-selftest" && (r.Filter == nil || r.Filter(c)) {
			selected = append(selected, c)
		}
	}
	for _, c := range r.Suite.Cases {
		if c.Family != "01-selftest" && (r.Filter == nil || r.Filter(c)) {
			selected = append(selected, c)
		}
	}
	rep := newReport(r.Suite, r.Level)
	outputs := map[string]*objects.Value{}
	for _, c := range selected {
		res, out := r.runCase(c)
		rep.Results = append(rep.Results, res)
		outputs[c.ID] = out
	}
	rep.finish(selected, outputs, r.Suite.Manifest.AliasGroups)
	return rep
}

func (r *Runner) runCase(c Case) (Result, *objects.Value) {
	res := Result{ID: c.ID, Op: c.Op, Section: c.Section, Family: c.Family,
		Status: StatusFail, Expected: c.Expect, ReasonExpected: optString(c.Reason)}
	for _, need := range c.Requires {
		if !contains(r.Capabilities, need) {
			res.Status = StatusSkip
			res.Detail = "requires " + need
			return res, nil
		}
	}
	// A path input is a small fixture file, read first so an absent
	// fixture is a skip whatever the op; any other input is assembled
	// only once the op is known to be implemented, as a gen input may be
	// hundreds of megabytes.
	var in Input
	var err error
	if c.Input.Path != nil {
		in, err = r.Suite.BuildInput(c, r.CompatRoot)
		if errors.Is(err, ErrFixtureAbsent) {
			res.Status = StatusSkip
			res.Detail = err.Error()
			return res, nil
		}
	}
	if s, ok := r.Adapter.(opSupporter); ok && !s.Supports(c.Op) {
		res.Status = StatusUnsupported
		return res, nil
	}
	if c.Input.Path == nil {
		in, err = r.Suite.BuildInput(c, r.CompatRoot)
	}
	if err != nil {
		res.Detail = err.Error()
		return res, nil
	}
	resp := r.Adapter.Handle(Request{ID: c.ID, Op: c.Op, Input: in, Args: c.Args})
	if resp.Unsupported {
		res.Status = StatusUnsupported
		return res, nil
	}
	res.Actual = optString("reject")
	if resp.OK {
		res.Actual = optString("accept")
	}
	res.ReasonActual = optString(resp.Reason)
	unordered := r.Suite.Manifest.Ops[c.Op].Unordered
	actual, err := outputValue(resp)
	if err != nil {
		res.Detail = err.Error()
		return res, nil
	}
	if c.Expect == "reject" {
		return r.scoreReject(c, res, resp, actual, unordered), nil
	}
	if !resp.OK {
		res.Detail = fmt.Sprintf("refused a valid input: %q %s", resp.Reason, resp.Message)
		return res, nil
	}
	if c.OutputSHA256 != "" {
		canon, err := objects.CanonV2(normalize(actual, unordered))
		if err != nil {
			res.Detail = "output does not canonicalize: " + err.Error()
			return res, nil
		}
		sum := sha256.Sum256(canon)
		if hex.EncodeToString(sum[:]) != c.OutputSHA256 {
			res.Detail = "output digest does not match output_sha256"
			return res, nil
		}
	} else {
		want, err := DecodePlain(c.Output)
		if err != nil {
			res.Detail = "vector output: " + err.Error()
			return res, nil
		}
		if !objects.Equal(normalize(actual, unordered), normalize(want, unordered)) {
			res.Detail = "output mismatch: " + truncate(string(mustJSON(resp.Output)), 200)
			return res, nil
		}
	}
	res.Status = StatusPass
	return res, &actual
}

func (r *Runner) scoreReject(c Case, res Result, resp Response, actual objects.Value, unordered []string) Result {
	if resp.OK {
		res.Detail = "accepted input the format requires be refused"
		if c.Forbidden != nil {
			forbidden, err := DecodePlain(c.Forbidden)
			if err == nil && subsetMatches(actual, forbidden, unordered) {
				res.Status = StatusRepaired
				res.Detail = "accepted and silently repaired the input"
			}
		}
		return res
	}
	if r.Level >= 2 && !reasonOK(resp.Reason, c, r.Suite.Manifest.AliasGroups) {
		res.Detail = fmt.Sprintf("expected reason %q, got %q (%s)", c.Reason, resp.Reason, truncate(resp.Message, 160))
		return res
	}
	res.Status = StatusPass
	return res
}

// outputValue turns a response's output into a Value through its wire
// encoding, so the in-process run compares exactly what a runner reading
// the adapter's stdout would.
func outputValue(resp Response) (objects.Value, error) {
	if !resp.OK {
		return objects.Null(), nil
	}
	line, err := resp.MarshalJSON()
	if err != nil {
		return objects.Value{}, fmt.Errorf("response does not encode: %w", err)
	}
	v, err := DecodePlain(line)
	if err != nil {
		return objects.Value{}, fmt.Errorf("response does not decode: %w", err)
	}
	out, _ := v.Get("output")
	return out, nil
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
