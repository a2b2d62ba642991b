package gates

import (
	"bytes"
	"context"
	"fmt"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// The evidence event (ARCHITECTURE §4: one event per constraint of a gate
// run). Its payload:
//
//	kind          "policy" (a gate check decides; SPEC §1.5 convention)
//	tool          "gate:<constraint id>", so tine diff aligns the same
//	              constraint across two gate runs
//	parent_ids    [] — evidence events are roots, so a later gate run can
//	              include a reused event by oid without its neighbours
//	time_unix     when evaluation started; duration in seconds
//	input_digest  the constraint's input digest (top level: the catalog's
//	              gate-input table files the event under it — the cache)
//	output_blob   the redacted, cut output tail
//	attributes    {constraint_id, constraint_kind, enforcement, verdict,
//	               phase, contract, evidence_digest, checkout_digest,
//	               files_digest, watched_files, argv?, exit_code?, value?,
//	               category?}
//	gate_evidence gate.Evidence.JSON() with output_tail "" (the tail is
//	              the blob)
//
// DecodeGateEvidence reads it back strictly and fails closed.
const (
	// GateEventKind is the kind of evidence events.
	GateEventKind = "policy"
	// gateToolPrefix prefixes the constraint id in the tool field.
	gateToolPrefix = "gate:"
	// gateEvidenceMember holds the evidence body.
	gateEvidenceMember = "gate_evidence"
)

// GateEvidenceRecord is stored evidence read back from its event.
type GateEvidenceRecord struct {
	// Event is the evidence event's oid.
	Event objects.OID
	// Evidence is the decoded evidence, output tail included.
	Evidence *gate.Evidence
	// Phase is the phase of the gate run that produced it.
	Phase gate.Phase
	// Contract is the contract digest it was produced under.
	Contract string
	// CheckoutDigest and FilesDigest summarise the checkout and watched
	// files it saw (hex SHA-256), so debug can say why it is stale.
	CheckoutDigest, FilesDigest string
	// WatchedFiles is how many files the watch globs matched.
	WatchedFiles int
	// Digest is the evidence digest waivers bind to.
	Digest string
	// Time is time_unix.
	Time float64
}

// gateDigestParts are the parts of an input digest an event records.
type gateDigestParts struct {
	contract, checkout, files string
	watched                   int
}

// buildGateEvent builds the output blob and evidence event for ev, then
// decodes the event back so the caller holds exactly the stored form.
func buildGateEvent(ctx context.Context, a objects.Algo, ev *gate.Evidence, phase gate.Phase, parts gateDigestParts) (*gateWrite, *GateEvidenceRecord, error) {
	blob := objects.NewBlob(a, objects.RedactBlob(ev.Output))
	body := ev.JSON()
	body = setMember(body, "output_tail", objects.String(""))
	body, _ = objects.RedactValue(body)
	// Decode the stored body first: the evidence digest must be the one a
	// later reader computes.
	stored, err := decodeEvidenceBody(body, blob.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("evidence of %s: %w", ev.ConstraintID, err)
	}
	digest, err := stored.Digest()
	if err != nil {
		return nil, nil, err
	}
	attrs := []objects.Member{
		m("constraint_id", objects.String(stored.ConstraintID)),
		m("constraint_kind", objects.String(string(stored.Kind))),
		m("enforcement", objects.String(string(stored.Enforcement))),
		m("verdict", objects.String(string(stored.Verdict))),
		m("phase", objects.String(string(phase))),
		m("contract", objects.String(parts.contract)),
		m("evidence_digest", objects.String(digest)),
		m("checkout_digest", objects.String(parts.checkout)),
		m("files_digest", objects.String(parts.files)),
		m("watched_files", objects.Int(int64(parts.watched))),
	}
	if stored.Command != nil {
		attrs = append(attrs, m("argv", runs.StringsValue(stored.Command)))
	}
	if stored.ExitCode != nil {
		attrs = append(attrs, m("exit_code", objects.Int(int64(*stored.ExitCode))))
	}
	if stored.Value != nil {
		attrs = append(attrs, m("value", objects.Float(*stored.Value)))
	}
	if stored.Category != "" {
		attrs = append(attrs, m("category", objects.String(string(stored.Category))))
	}
	dur := stored.Duration.Seconds()
	if dur < 0 {
		dur = 0
	}
	payload := objects.ObjectValue(
		m("kind", objects.String(GateEventKind)),
		m("tool", objects.String(gateToolPrefix+stored.ConstraintID)),
		m("parent_ids", objects.Array()),
		m("time_unix", runs.TimeValue(stored.Started)),
		m("duration", objects.Float(dur)),
		m("input_digest", objects.String(stored.InputDigest)),
		m("output_blob", objects.String(blob.ID.String())),
		m("attributes", objects.ObjectValue(attrs...)),
		m(gateEvidenceMember, body),
	)
	payload, _ = objects.RedactValue(payload)
	if err := objects.CheckMetrics(payload); err != nil {
		return nil, nil, fmt.Errorf("evidence of %s: %w: %w", ev.ConstraintID, runs.ErrBadEvent, err)
	}
	o, err := objects.NewJSONObject(a, objects.TypeEvent, 1, payload)
	if err != nil {
		return nil, nil, fmt.Errorf("evidence of %s: %w: %w", ev.ConstraintID, runs.ErrBadEvent, err)
	}
	rec, err := decodeGateEvent(o, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("evidence of %s does not read back: %w", ev.ConstraintID, err)
	}
	return &gateWrite{blob: blob, event: o}, rec, nil
}

// setMember returns object v with key set to val (replaced in place).
func setMember(v objects.Value, key string, val objects.Value) objects.Value {
	out := make([]objects.Member, 0, len(v.Object))
	for _, mem := range v.Object {
		if mem.Key == key {
			mem.Value = val
		}
		out = append(out, mem)
	}
	return objects.ObjectValue(out...)
}

// DecodeGateEvidence reads the evidence event id and its output blob from
// g. Anything that is not exactly what tine writes — a missing member,
// an unknown key, a wrong type, a body that does not re-encode to itself,
// an evidence digest that does not match — is an error wrapping
// gate.ErrEvidence; callers treat it as no evidence (stale), never as a
// result (SPEC §10: corrupt evidence reruns).
func DecodeGateEvidence(ctx context.Context, g objects.Getter, id objects.OID) (*GateEvidenceRecord, error) {
	if id.Type != objects.TypeEvent {
		return nil, fmt.Errorf("%w: %s is not an event", gate.ErrEvidence, id)
	}
	o, err := g.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("evidence event %s: %w", id, err)
	}
	bid, ok := runs.OIDField(o.Value, "output_blob")
	if !ok || bid.Type != objects.TypeBlob {
		return nil, fmt.Errorf("%w: event %s has no output_blob", gate.ErrEvidence, id)
	}
	blob, err := g.Get(ctx, bid)
	if err != nil {
		return nil, fmt.Errorf("evidence event %s: output %s: %w", id, bid, err)
	}
	return decodeGateEvent(o, blob)
}

// decodeGateEvent decodes an evidence event given its output blob.
func decodeGateEvent(o *objects.Object, blob *objects.Object) (*GateEvidenceRecord, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: event %s: %s", gate.ErrEvidence, o.ID, fmt.Sprintf(format, args...))
	}
	v := o.Value
	if o.Type != objects.TypeEvent || v.Kind != objects.KindObject {
		return nil, bad("not an event object")
	}
	if runs.Str(v, "kind") != GateEventKind {
		return nil, bad("kind is not %s", GateEventKind)
	}
	if bid, ok := runs.OIDField(v, "output_blob"); !ok || bid != blob.ID || blob.Type != objects.TypeBlob {
		return nil, bad("output_blob does not name its blob")
	}
	body, ok := v.Get(gateEvidenceMember)
	if !ok {
		return nil, bad("no %s member", gateEvidenceMember)
	}
	ev, err := decodeEvidenceBody(body, blob.Body)
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", o.ID, err)
	}
	if runs.Str(v, "tool") != gateToolPrefix+ev.ConstraintID || runs.Str(v, "input_digest") != ev.InputDigest {
		return nil, bad("tool or input_digest disagree with the evidence")
	}
	attrs, _ := v.Get("attributes")
	rec := &GateEvidenceRecord{Event: o.ID, Evidence: ev}
	rec.Phase = gate.Phase(runs.Str(attrs, "phase"))
	if _, err := gate.ParsePhase(string(rec.Phase)); err != nil {
		return nil, bad("phase %q", rec.Phase)
	}
	rec.Contract, rec.CheckoutDigest, rec.FilesDigest = runs.Str(attrs, "contract"), runs.Str(attrs, "checkout_digest"), runs.Str(attrs, "files_digest")
	if n, ok := attrs.Get("watched_files"); ok && n.Kind == objects.KindInt && n.Big == nil && n.Int >= 0 {
		rec.WatchedFiles = int(n.Int)
	}
	if runs.Str(attrs, "constraint_id") != ev.ConstraintID || runs.Str(attrs, "verdict") != string(ev.Verdict) {
		return nil, bad("attributes disagree with the evidence")
	}
	if rec.Digest, err = ev.Digest(); err != nil {
		return nil, err
	}
	if runs.Str(attrs, "evidence_digest") != rec.Digest {
		return nil, bad("evidence digest does not match its body")
	}
	if t, ok := v.Get("time_unix"); ok {
		rec.Time, _ = runs.Meter(t)
	}
	return rec, nil
}

// decodeEvidenceBody decodes a stored gate_evidence body (output_tail "")
// with output as its tail, and requires that it re-encodes to exactly the
// stored bytes: a field this reader does not know, or a value it would
// write differently, is corrupt evidence.
func decodeEvidenceBody(body objects.Value, output []byte) (*gate.Evidence, error) {
	ev, err := parseEvidence(body)
	if err != nil {
		return nil, err
	}
	want, err := objects.CanonV3(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", gate.ErrEvidence, err)
	}
	got, err := objects.CanonV3(ev.JSON())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", gate.ErrEvidence, err)
	}
	if !bytes.Equal(got, want) {
		return nil, fmt.Errorf("%w: constraint %s: the stored body is not in tine's form", gate.ErrEvidence, ev.ConstraintID)
	}
	if len(output) > 0 {
		ev.Output = append([]byte(nil), output...)
	}
	return ev, nil
}
