package objects

import (
	"errors"
	"fmt"
)

// ErrArtifactVersion reports a .tine document whose format_version is
// missing, not an integer, older than 1 or newer than 2 (SPEC §3.1). The
// error text is the reference's verdict message.
var ErrArtifactVersion = errors.New("unreadable .tine format_version")

// ArtifactRunStatuses are the run statuses a .tine document may hold.
var ArtifactRunStatuses = []string{"running", "paused", "completed", "failed"}

// MigrationTool names this implementation in the metadata.migration chain
// an in-memory v1 -> v2 migration appends (SPEC §3.1).
const MigrationTool = "tine"

// Artifact is a loaded .tine run record (SPEC §3.1-§3.3), migrated to
// format_version 2 in memory when it was a v1 file.
type Artifact struct {
	// Original is the document exactly as parsed; Version its on-disk
	// format_version (1 or 2). The integrity digest is checked on Original.
	Original Value
	Version  int
	// Doc is the document at format_version 2 (Original itself for a v2
	// file).
	Doc Value
	// RunID, Status and CreatedAt are the run's top-level fields.
	RunID, Status string
	CreatedAt     float64
	// Draft marks an autosave checkpoint.
	Draft bool
	// Steps are the step records in graph order (parents first).
	Steps []ArtifactStep
	// Refs are the named tips: name -> step id ("" allowed), file order.
	Refs []Member
	// Manifest, Policies, Cache and Metadata are objects; Transcript a list.
	Manifest, Policies, Cache, Metadata, Transcript Value
	// ModelInfo, SystemPrompt and UserPrompt come from metadata (the model
	// from manifest.model.name when that is a string).
	ModelInfo, SystemPrompt, UserPrompt string
}

// LoadArtifact parses data with ParseArtifact and decodes the run record
// with DecodeArtifact.
func LoadArtifact(data []byte) (*Artifact, error) {
	doc, err := ParseArtifact(data)
	if err != nil {
		return nil, err
	}
	return DecodeArtifact(doc)
}

// DecodeArtifact reads a parsed .tine document fail-closed: the top level
// must be an object holding the eleven run-record members with their
// types, a readable format_version (1 or 2; the legacy 0.1.0 linear shape
// without one is refused, as it cannot be verified), a status among
// ArtifactRunStatuses, refs naming stored steps, and a graph whose order
// lists every stored step exactly once with each parent before its child.
// Errors wrap ErrArtifactNotObject, ErrArtifactVersion or ErrBadArtifact.
func DecodeArtifact(doc Value) (*Artifact, error) {
	if doc.Kind != KindObject {
		return nil, ErrArtifactNotObject
	}
	if msg, ok := checkFormatVersion(doc); !ok {
		return nil, fmt.Errorf("%w: %s", ErrArtifactVersion, msg)
	}
	fv, _ := doc.Get("format_version")
	a := &Artifact{Original: doc, Version: int(fv.Int), Doc: doc}
	if err := a.readRecord(doc); err != nil {
		return nil, err
	}
	if a.Version == 1 {
		migrated, err := MigrateArtifactV1(doc)
		if err != nil {
			return nil, err
		}
		a.Doc = migrated
	}
	return a, nil
}

// runRequired are the members of every .tine run record (SPEC §3.1).
var runRequired = []string{"cache", "created_at", "format_version", "graph", "manifest", "metadata", "policies", "refs", "run_id", "status", "transcript"}

// readRecord fills a from the top-level members.
func (a *Artifact) readRecord(doc Value) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadArtifact, fmt.Sprintf(format, args...))
	}
	for _, k := range runRequired {
		if _, ok := doc.Get(k); !ok {
			return bad("missing %q", k)
		}
	}
	id, _ := doc.Get("run_id")
	if id.Kind != KindString || id.Str == "" {
		return bad("run_id must be a non-empty string")
	}
	a.RunID = id.Str
	for _, f := range []struct {
		key string
		dst *Value
		k   Kind
	}{{"refs", new(Value), KindObject}, {"manifest", &a.Manifest, KindObject}, {"policies", &a.Policies, KindObject},
		{"cache", &a.Cache, KindObject}, {"metadata", &a.Metadata, KindObject}, {"transcript", &a.Transcript, KindArray}} {
		v, _ := doc.Get(f.key)
		if v.Kind != f.k {
			return bad("%s must be a JSON %s", f.key, f.k)
		}
		*f.dst = v
	}
	st, _ := doc.Get("status")
	if st.Kind != KindString || !contains(ArtifactRunStatuses, st.Str) {
		return bad("status %s is not one of %v", pyRepr(st), ArtifactRunStatuses)
	}
	a.Status = st.Str
	ca, _ := doc.Get("created_at")
	var err error
	if a.CreatedAt, err = finiteNumber(ca); err != nil {
		return bad("created_at %v", err)
	}
	if d, ok := doc.Get("draft"); ok {
		if d.Kind != KindBool {
			return bad("draft must be a boolean")
		}
		a.Draft = d.Bool
	}
	if err := a.readMetadata(); err != nil {
		return err
	}
	graph, _ := doc.Get("graph")
	if a.Steps, err = orderedSteps(graph); err != nil {
		return err
	}
	refs, _ := doc.Get("refs")
	known := make(map[string]bool, len(a.Steps))
	for _, s := range a.Steps {
		known[s.ID] = true
	}
	for _, m := range refs.Object {
		if m.Value.Kind != KindString {
			return bad("refs.%s must name a step id", abbreviate(m.Key))
		}
		if m.Value.Str != "" && !known[m.Value.Str] {
			return bad("refs.%s names %s, which is not a stored step", abbreviate(m.Key), abbreviate(m.Value.Str))
		}
	}
	a.Refs = refs.Object
	return nil
}

// readMetadata reads the prompts, the model and the tags' shape.
func (a *Artifact) readMetadata() error {
	for _, f := range []struct {
		key string
		dst *string
	}{{"model_info", &a.ModelInfo}, {"system_prompt", &a.SystemPrompt}, {"user_prompt", &a.UserPrompt}} {
		v, ok := a.Metadata.Get(f.key)
		if !ok {
			continue
		}
		if v.Kind != KindString {
			return fmt.Errorf("%w: metadata.%s must be a string", ErrBadArtifact, f.key)
		}
		*f.dst = v.Str
	}
	if tags, ok := a.Metadata.Get("tags"); ok {
		if _, err := stringList(a.Metadata, "tags"); err != nil || tags.Kind != KindArray {
			return fmt.Errorf("%w: metadata.tags must be a list of strings", ErrBadArtifact)
		}
	}
	model, ok := a.Manifest.Get("model")
	if !ok || model.Kind == KindNull {
		return nil
	}
	name, hasName := model.Get("name")
	if model.Kind != KindObject || (hasName && name.Kind != KindString) {
		return fmt.Errorf("%w: manifest.model must be an object with a string name", ErrBadArtifact)
	}
	if hasName {
		a.ModelInfo = name.Str
	}
	return nil
}

// orderedSteps reads graph.steps in graph.order (the keys' order when
// order is absent): every stored step exactly once, each parent earlier.
func orderedSteps(graph Value) ([]ArtifactStep, error) {
	if graph.Kind != KindObject {
		return nil, fmt.Errorf("%w: graph must be an object", ErrBadArtifact)
	}
	steps, ok := graph.Get("steps")
	if !ok {
		steps = ObjectValue()
	}
	if steps.Kind != KindObject {
		return nil, fmt.Errorf("%w: graph.steps must be an object", ErrBadArtifact)
	}
	var order []string
	if _, ok := graph.Get("order"); ok {
		var err error
		if order, err = stringList(graph, "order"); err != nil {
			return nil, fmt.Errorf("%w: graph.%v", ErrBadArtifact, err)
		}
		if o, _ := graph.Get("order"); o.Kind != KindArray {
			return nil, fmt.Errorf("%w: graph.order must be a list of step ids", ErrBadArtifact)
		}
	} else {
		for _, m := range steps.Object {
			order = append(order, m.Key)
		}
	}
	if len(order) != len(steps.Object) {
		return nil, fmt.Errorf("%w: graph.order lists %d steps, graph.steps holds %d", ErrBadArtifact, len(order), len(steps.Object))
	}
	seen := make(map[string]bool, len(order))
	out := make([]ArtifactStep, 0, len(order))
	for _, id := range order {
		if seen[id] {
			return nil, fmt.Errorf("%w: graph.order repeats step %s", ErrBadArtifact, abbreviate(id))
		}
		rec, ok := steps.Get(id)
		if !ok {
			return nil, fmt.Errorf("%w: graph.order names %s, which graph.steps does not hold", ErrBadArtifact, abbreviate(id))
		}
		s, err := decodeArtifactStep(id, rec)
		if err != nil {
			return nil, err
		}
		for _, p := range append(append([]string{}, s.ParentIDs...), s.CausalIDs...) {
			if !seen[p] {
				return nil, fmt.Errorf("%w: step %s names %s, which is not an earlier step", ErrBadArtifact, abbreviate(id), abbreviate(p))
			}
		}
		seen[id] = true
		out = append(out, s)
	}
	return out, nil
}

// MigrateArtifactV1 returns the format_version 2 form of a v1 document
// (SPEC §3.1), leaving doc untouched: format_version becomes 2, a
// {"from":1,"to":2,"tool":MigrationTool} entry is appended to
// metadata.migration (replacing a member that is not a list), any
// metadata.integrity.signature is dropped (the version change invalidates
// it) and metadata.integrity is recomputed. v2 only added fields, so
// nothing else changes.
func MigrateArtifactV1(doc Value) (Value, error) {
	if doc.Kind != KindObject {
		return Value{}, ErrArtifactNotObject
	}
	out := withMember(doc, "format_version", Int(2))
	md, _ := out.Get("metadata")
	if md.Kind != KindObject {
		md = ObjectValue()
	}
	chain, _ := md.Get("migration")
	var entries []Value
	if chain.Kind == KindArray {
		entries = append(entries, chain.Array...)
	}
	entries = append(entries, ObjectValue(
		Member{Key: "from", Value: Int(1)}, Member{Key: "to", Value: Int(2)}, Member{Key: "tool", Value: String(MigrationTool)}))
	md = withMember(md, "migration", Array(entries...))
	integrity, _ := md.Get("integrity")
	kept := []Member{}
	if integrity.Kind == KindObject {
		for _, m := range integrity.Object {
			if m.Key != "signature" && m.Key != "algorithm" && m.Key != "digest" {
				kept = append(kept, m)
			}
		}
	}
	digest, err := IntegrityDigest(out)
	if err != nil {
		return Value{}, err
	}
	kept = append(kept, Member{Key: "algorithm", Value: String(IntegrityAlgorithm)}, Member{Key: "digest", Value: String(digest)})
	md = withMember(md, "integrity", ObjectValue(kept...))
	return withMember(out, "metadata", md), nil
}

// withMember returns a copy of object v with key set to val (appended when
// absent); v's member slice is never written.
func withMember(v Value, key string, val Value) Value {
	members := make([]Member, 0, len(v.Object)+1)
	found := false
	for _, m := range v.Object {
		if m.Key == key {
			m.Value, found = val, true
		}
		members = append(members, m)
	}
	if !found {
		members = append(members, Member{Key: key, Value: val})
	}
	return ObjectValue(members...)
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
