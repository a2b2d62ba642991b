package runs

import (
	"encoding/base64"
	"fmt"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// MaxBlobBytes bounds one blob given inline or by path to import or
// record --event; larger content is refused before it is read.
const MaxBlobBytes = 64 << 20

// blobSlots maps the convenience keys of an event spec to the SPEC §1.5
// link fields that hold their blobs.
var blobSlots = []struct{ key, field string }{
	{"input", "input_blob"},
	{"output", "output_blob"},
	{"artifact", "artifact_blob"},
}

// specReader turns the blob members of an event spec into blobs. Paths are
// relative to dir and confined to it.
type specReader struct {
	algo objects.Algo
	dir  string
}

// blob reads one blob spec: a string (its UTF-8 text), {"path": P} (the file
// P under dir) or {"b64": S} (standard base64 with padding). The bytes are
// redacted before they are hashed (ARCHITECTURE §6).
func (s *specReader) blob(key string, v objects.Value) (*objects.Object, error) {
	var data []byte
	switch v.Kind {
	case objects.KindString:
		data = []byte(v.Str)
	case objects.KindObject:
		if len(v.Object) != 1 {
			return nil, fmt.Errorf("%s: want a string, {\"path\": ...} or {\"b64\": ...}", key)
		}
		m := v.Object[0]
		if m.Value.Kind != objects.KindString {
			return nil, fmt.Errorf("%s.%s: want a string", key, m.Key)
		}
		var err error
		switch m.Key {
		case "path":
			data, err = s.readConfined(m.Value.Str)
		case "b64":
			if base64.StdEncoding.DecodedLen(len(m.Value.Str)) > MaxBlobBytes {
				return nil, fmt.Errorf("%s.b64: more than %d bytes", key, MaxBlobBytes)
			}
			data, err = base64.StdEncoding.Strict().DecodeString(m.Value.Str)
		default:
			return nil, fmt.Errorf("%s: unknown key %q (want path or b64)", key, m.Key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", key, m.Key, err)
		}
	default:
		return nil, fmt.Errorf("%s: want a string, {\"path\": ...} or {\"b64\": ...}, not a JSON %s", key, v.Kind)
	}
	return objects.NewBlob(s.algo, redactBlob(data)), nil
}

// readConfined reads the regular file rel under s.dir, at most
// MaxBlobBytes. rel must be a relative slash path without "", "." or ".."
// components, and no component may be a symlink (ARCHITECTURE §6: paths
// from data never escape). The rule is enforced by the open itself, one
// component at a time, so a file swapped for a symlink between a check and
// the open cannot be followed (fsutil.OpenNoSymlinks).
func (s *specReader) readConfined(rel string) ([]byte, error) {
	if s.dir == "" {
		return nil, fmt.Errorf("path %q: no base directory for paths", rel)
	}
	return fsutil.ReadFileNoSymlinks(s.dir, rel, MaxBlobBytes)
}

// eventSpec turns an event spec (an event payload whose input, output and
// artifact members may hold blob specs) into a redacted payload and its
// blobs. The members in reserved are refused (import names them
// differently); set members are added or replaced after redaction.
func (s *specReader) eventSpec(spec objects.Value, reserved map[string]string, set []objects.Member) (objects.Value, []*objects.Object, error) {
	if spec.Kind != objects.KindObject {
		return objects.Value{}, nil, fmt.Errorf("an event is a JSON object, not a JSON %s", spec.Kind)
	}
	var blobs []*objects.Object
	drop := map[string]bool{}
	for _, m := range spec.Object {
		if why, ok := reserved[m.Key]; ok {
			return objects.Value{}, nil, fmt.Errorf("key %q: %s", m.Key, why)
		}
	}
	var links []objects.Member
	for _, slot := range blobSlots {
		v, ok := spec.Get(slot.key)
		if !ok {
			continue
		}
		if _, both := spec.Get(slot.field); both {
			return objects.Value{}, nil, fmt.Errorf("%s and %s cannot be combined", slot.key, slot.field)
		}
		b, err := s.blob(slot.key, v)
		if err != nil {
			return objects.Value{}, nil, err
		}
		blobs = append(blobs, b)
		drop[slot.key] = true
		links = append(links, objects.Member{Key: slot.field, Value: objects.String(b.ID.String())})
	}
	payload, _ := redactValue(derivePayload(spec, nil, drop))
	return derivePayload(payload, append(links, set...), nil), blobs, nil
}
