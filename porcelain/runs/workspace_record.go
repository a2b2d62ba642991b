package runs

import (
	"strings"

	"github.com/tinehq/tine/objects"
)

// A recorded command names its code state twice: the event's
// attributes.workspace holds the summary and the manifest blob's oid (as a
// string: SPEC §1.5.3 makes only input_blob, output_blob and artifact_blob
// links of an event), and the run's manifests (SPEC §1.5.3: an object whose
// values are blob oids, all links) holds the blob under "code", OpenTine's
// slot for the run's code state, which is the newest command's, and under
// "code/<oid>" for every state any of its commands ran in, so that pack,
// fetch, fork and gc keep each one with the run.

// WorkspaceManifestPrefix starts the run manifest keys that keep each
// recorded code state linked ("code/<blob oid>").
const WorkspaceManifestPrefix = "code/"

// withWorkspace returns the tool event payload with w added to its
// attributes.
func withWorkspace(payload objects.Value, w *Workspace) objects.Value {
	if w == nil {
		return payload
	}
	out := make([]objects.Member, len(payload.Object))
	copy(out, payload.Object)
	for i, m := range out {
		if m.Key != "attributes" || m.Value.Kind != objects.KindObject {
			continue
		}
		attrs := append(append([]objects.Member(nil), m.Value.Object...), objects.Member{Key: "workspace", Value: w.Value()})
		out[i].Value = objects.ObjectValue(attrs...)
	}
	return objects.ObjectValue(out...)
}

// codeManifests is the manifests member of a run (whose current manifests
// are cur, the zero Value for none) that also names the code state code.
func codeManifests(cur objects.Value, code objects.OID) objects.Member {
	key := WorkspaceManifestPrefix + code.String()
	var ms []objects.Member
	if cur.Kind == objects.KindObject {
		for _, m := range cur.Object {
			if m.Key != "code" && m.Key != key {
				ms = append(ms, m)
			}
		}
	}
	id := objects.String(code.String())
	ms = append(ms, objects.Member{Key: "code", Value: id}, objects.Member{Key: key, Value: id})
	return objects.Member{Key: "manifests", Value: objects.ObjectValue(ms...)}
}

// EventWorkspace returns the manifest oid named by a tool event's
// attributes.workspace, and false when the event has none.
func EventWorkspace(e *Event) (objects.OID, bool) {
	ws, ok := e.Attributes.Get("workspace")
	if !ok || ws.Kind != objects.KindObject {
		return objects.OID{}, false
	}
	m, ok := ws.Get("manifest")
	if !ok || m.Kind != objects.KindString || !strings.HasPrefix(m.Str, "blob:") {
		return objects.OID{}, false
	}
	id, err := objects.ParseOID(m.Str)
	if err != nil {
		return objects.OID{}, false
	}
	return id, true
}
