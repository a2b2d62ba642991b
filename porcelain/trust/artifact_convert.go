package trust

import (
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
)

// convertArtifact builds the objects of a migrated artifact (SPEC §5.4), in
// write order with the run last: per step its input and output blobs and
// its event; the manifest, prompt, legacy and map blobs; the run. Content
// is redacted before it is hashed; the legacy blob is the source verbatim.
// The result is deterministic: the same bytes and verdicts give the same
// oids.
func convertArtifact(a objects.Algo, data []byte, art *objects.Artifact, integrity objects.IntegrityResult, sig *objects.Verdict) (*ArtifactView, error) {
	c := &converter{algo: a, seen: map[objects.OID]bool{}}
	v := &ArtifactView{Artifact: art, Integrity: integrity}
	eventOf := make(map[string]objects.OID, len(art.Steps))
	var events []*runs.Event
	for i := range art.Steps {
		s := &art.Steps[i]
		payload, err := c.eventPayload(s, eventOf)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", s.ID, err)
		}
		if err := objects.CheckMetrics(payload); err != nil {
			return nil, fmt.Errorf("step %s: %w", s.ID, err)
		}
		ev, err := c.put(objects.RedactObject(a, objects.TypeEvent, 1, payload))
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", s.ID, err)
		}
		de, err := runs.DecodeEvent(ev)
		if err != nil {
			return nil, err
		}
		eventOf[s.ID] = ev.ID
		events = append(events, de)
		v.EventMap = append(v.EventMap, objects.Member{Key: s.ID, Value: objects.String(ev.ID.String())})
	}
	run, err := c.runPayload(data, art, events, eventOf, v.EventMap, integrity, sig)
	if err != nil {
		return nil, err
	}
	if _, err := c.put(objects.RedactObject(a, objects.TypeRun, 1, run)); err != nil {
		return nil, fmt.Errorf("run %s: %w", art.RunID, err)
	}
	v.objs = c.objs
	return v, nil
}

// converter collects the objects of one conversion, each once.
type converter struct {
	algo objects.Algo
	objs []*objects.Object
	seen map[objects.OID]bool
}

// put records o (once) and returns it.
func (c *converter) put(o *objects.Object, err error) (*objects.Object, error) {
	if err != nil {
		return nil, err
	}
	if !c.seen[o.ID] {
		c.seen[o.ID] = true
		c.objs = append(c.objs, o)
	}
	return o, nil
}

// jsonBlob stores v, redacted, as a v3-canonical JSON blob.
func (c *converter) jsonBlob(v objects.Value) (objects.Value, error) {
	rv, _ := objects.RedactValue(v)
	b, err := objects.CanonV3(rv)
	if err != nil {
		return objects.Value{}, err
	}
	return c.blob(b, true)
}

// blob stores raw bytes, scrubbed unless redact is false, and returns its
// oid as a string value.
func (c *converter) blob(b []byte, redact bool) (objects.Value, error) {
	var o *objects.Object
	var err error
	if redact {
		o, err = objects.RedactBlobObject(c.algo, 1, b)
	} else {
		o = objects.NewBlob(c.algo, b)
	}
	if o, err = c.put(o, err); err != nil {
		return objects.Value{}, err
	}
	return objects.String(o.ID.String()), nil
}

// eventPayload is a step as an event: kind, legacy_step_id, mapped
// parent_ids and causal_ids, meters, time_unix, and the non-empty model,
// provider, tool (tool_info.name when a string), tool_info, error, usage,
// billing and input/output blobs.
func (c *converter) eventPayload(s *objects.ArtifactStep, eventOf map[string]objects.OID) (objects.Value, error) {
	mapIDs := func(ids []string) objects.Value {
		out := make([]objects.OID, len(ids))
		for i, id := range ids {
			out[i] = eventOf[id] // DecodeArtifact checked each names an earlier step
		}
		return runs.OIDValues(out)
	}
	m := []objects.Member{
		{Key: "kind", Value: objects.String(s.Kind)},
		{Key: "legacy_step_id", Value: objects.String(s.ID)},
		{Key: "parent_ids", Value: mapIDs(s.ParentIDs)},
		{Key: "cost", Value: s.Cost},
		{Key: "duration", Value: s.Duration},
		{Key: "time_unix", Value: objects.Float(s.Timestamp)},
	}
	if len(s.CausalIDs) > 0 {
		m = append(m, objects.Member{Key: "causal_ids", Value: mapIDs(s.CausalIDs)})
	}
	for _, f := range []struct{ key, val string }{{"model", s.ModelInfo}, {"provider", s.Provider}} {
		if f.val != "" {
			m = append(m, objects.Member{Key: f.key, Value: objects.String(f.val)})
		}
	}
	if name, ok := s.ToolInfo.Get("name"); ok && name.Kind == objects.KindString && name.Str != "" {
		m = append(m, objects.Member{Key: "tool", Value: name})
	}
	for _, f := range []struct {
		key string
		v   objects.Value
	}{{"tool_info", s.ToolInfo}, {"error", s.Error}, {"usage", s.Usage}, {"billing", s.Billing}} {
		if len(f.v.Object) > 0 {
			m = append(m, objects.Member{Key: f.key, Value: f.v})
		}
	}
	for _, f := range []struct {
		key string
		v   objects.Value
	}{{"input_blob", s.Inputs}, {"output_blob", s.Outputs}} {
		if len(f.v.Object) == 0 {
			continue
		}
		id, err := c.jsonBlob(f.v)
		if err != nil {
			return objects.Value{}, fmt.Errorf("%s: %w", f.key, err)
		}
		m = append(m, objects.Member{Key: f.key, Value: id})
	}
	return objects.ObjectValue(m...), nil
}

// runPayload is the migrated run: the graph, manifests, prompts, the
// source's identity, and the legacy field set.
func (c *converter) runPayload(data []byte, art *objects.Artifact, events []*runs.Event, eventOf map[string]objects.OID,
	eventMap []objects.Member, integrity objects.IntegrityResult, sig *objects.Verdict) (objects.Value, error) {
	roots, tips := runs.RootsTips(events)
	var legacyRefs []objects.Member
	for _, r := range art.Refs {
		if id, ok := eventOf[r.Value.Str]; ok && r.Value.Str != "" {
			legacyRefs = append(legacyRefs, objects.Member{Key: r.Key, Value: objects.String(id.String())})
		}
	}
	ids := make([]objects.OID, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	var manifests []objects.Member
	for _, f := range []struct {
		key string
		v   objects.Value
	}{{"cache", art.Cache}, {"policy", art.Policies}, {"run", art.Manifest}, {"transcript", art.Transcript}} {
		id, err := c.jsonBlob(f.v)
		if err != nil {
			return objects.Value{}, fmt.Errorf("manifest %s: %w", f.key, err)
		}
		manifests = append(manifests, objects.Member{Key: f.key, Value: id})
	}
	created, _ := art.Original.Get("created_at")
	m := []objects.Member{
		{Key: "created_at", Value: created},
		{Key: "events", Value: runs.OIDValues(ids)},
		{Key: "roots", Value: runs.OIDValues(roots)},
		{Key: "tips", Value: runs.OIDValues(tips)},
		{Key: "legacy_refs", Value: objects.ObjectValue(legacyRefs...)},
		{Key: "manifests", Value: objects.ObjectValue(manifests...)},
		{Key: "source_run_id", Value: objects.String(art.RunID)},
		{Key: "status", Value: objects.String(art.Status)},
	}
	if art.ModelInfo != "" {
		m = append(m, objects.Member{Key: "model", Value: objects.String(art.ModelInfo)})
	}
	for _, f := range []struct{ key, text string }{{"system_blob", art.SystemPrompt}, {"prompt_blob", art.UserPrompt}} {
		if f.text == "" {
			continue
		}
		id, err := c.blob([]byte(f.text), true)
		if err != nil {
			return objects.Value{}, fmt.Errorf("%s: %w", f.key, err)
		}
		m = append(m, objects.Member{Key: f.key, Value: id})
	}
	legacy, err := c.blob(data, false) // SPEC §5.4: the exact original bytes, never redacted
	if err != nil {
		return objects.Value{}, fmt.Errorf("legacy blob: %w", err)
	}
	mapBytes, err := objects.CanonV3(objects.ObjectValue(eventMap...))
	if err != nil {
		return objects.Value{}, fmt.Errorf("migration map: %w", err)
	}
	mapID, err := c.blob(mapBytes, false)
	if err != nil {
		return objects.Value{}, fmt.Errorf("migration map: %w", err)
	}
	verification := []objects.Member{
		{Key: "integrity", Value: integrityValue(integrity)},
		{Key: "scope", Value: objects.String(LegacyScope)},
	}
	if sig != nil {
		verification = append(verification, objects.Member{Key: "signature", Value: signatureValue(sig)})
	}
	m = append(m,
		objects.Member{Key: "legacy_blob", Value: legacy},
		objects.Member{Key: "legacy_format", Value: objects.Int(int64(art.Version))},
		objects.Member{Key: "legacy_verification", Value: objects.ObjectValue(verification...)},
		objects.Member{Key: "migration_map_blob", Value: mapID},
		objects.Member{Key: "signature_scope", Value: objects.String(SignatureScopeLegacy)},
	)
	return objects.ObjectValue(m...), nil
}
