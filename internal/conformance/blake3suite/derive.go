package blake3suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/tinehq/tine/internal/conformance"
)

// maxDerivedInput bounds the gen inputs derive assembles; the only larger
// one is the 256 MiB+ pack frame, which is refused unread.
const maxDerivedInput = 16 << 20

// unordered are the output arrays compared as sets (MANIFEST ops.*.unordered).
var unordered = map[string]bool{"links": true, "objects": true, "shallow": true, "oids": true}

// blobReader reads a suite-relative blob input.
type blobReader func(rel string) ([]byte, error)

// inputBytes assembles a case's byte input; ok is false for a value input
// or a gen recipe over maxDerivedInput.
func inputBytes(c map[string]any, read blobReader) (b []byte, ok bool, err error) {
	in, _ := c["input"].(map[string]any)
	switch {
	case in["bytes_b64"] != nil:
		s, _ := in["bytes_b64"].(string)
		b, err = base64.StdEncoding.Strict().DecodeString(s)
		return b, err == nil, err
	case in["blob"] != nil:
		s, _ := in["blob"].(string)
		b, err = read(s)
		return b, err == nil, err
	case in["gen"] != nil:
		raw, err := json.Marshal(in["gen"])
		if err != nil {
			return nil, false, err
		}
		var g conformance.Gen
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, false, err
		}
		if g.IsValue() {
			return nil, false, nil
		}
		if n, err := g.Size(); err != nil || n > maxDerivedInput {
			return nil, false, err
		}
		b, err = g.AssembleBytes()
		return b, err == nil, err
	}
	return nil, false, nil
}

// derive computes, without tine's object code, the output fields of an
// accepted case that depend on the object hash, for the profile algo. A
// case it has nothing to say about yields nil.
func derive(c map[string]any, algo string, read blobReader) (map[string]any, error) {
	if c["expect"] != "accept" {
		return nil, nil
	}
	op, _ := c["op"].(string)
	out, _ := c["output"].(map[string]any)
	args, _ := c["args"].(map[string]any)
	switch op {
	case "oid.derive":
		body, ok, err := inputBytes(c, read)
		if !ok {
			return nil, err
		}
		h, _ := args["header"].(map[string]any)
		typ, _ := h["type"].(string)
		return map[string]any{"oid": hashPreimage(algo, typ, schemaOf(h["schema"]), body)}, nil
	case "envelope.decode", "object.load":
		b, ok, err := inputBytes(c, read)
		if !ok {
			return nil, err
		}
		typ, schema, body, ok := splitEnvelope(b)
		if !ok {
			return nil, fmt.Errorf("%s: input is not an envelope", c["id"])
		}
		if op == "object.load" {
			return map[string]any{"oid": hashPreimage(algo, typ, schema, body)}, nil
		}
		enc := "json"
		if typ == "blob" {
			enc = "raw"
		}
		return map[string]any{"oid": hashPreimage(algo, typ, schema, body), "type": typ,
			"schema": json.Number(schema), "encoding": enc, "body_b64": base64.StdEncoding.EncodeToString(body)}, nil
	case "envelope.encode":
		return envelopeOID(c, out["bytes_b64"], algo)
	case "object.put":
		body, err := b64Field(c, out["body_b64"])
		if err != nil {
			return nil, err
		}
		typ, _ := args["type"].(string)
		return map[string]any{"oid": hashPreimage(algo, typ, schemaOf(args["schema"]), body)}, nil
	case "attest.sign":
		body, err := b64Field(c, out["body_b64"])
		if err != nil {
			return nil, err
		}
		return map[string]any{"oid": hashPreimage(algo, "attestation", "1", body)}, nil
	case "oid.parse", "object.path":
		in, _ := c["input"].(map[string]any)
		s, _ := in["value"].(string)
		parts := strings.Split(s, ":")
		if len(parts) != 3 || len(parts[2]) != 64 {
			return nil, fmt.Errorf("%s: input is not an oid", c["id"])
		}
		if op == "oid.parse" {
			return map[string]any{"type": parts[0], "digest": parts[2]}, nil
		}
		return map[string]any{"path": "objects/" + parts[0] + "/" + parts[2][:2] + "/" + parts[2][2:]}, nil
	case "shallow.parse":
		b, ok, err := inputBytes(c, read)
		if !ok {
			return nil, err
		}
		var lines []string
		if len(b) > 0 {
			lines = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		}
		return map[string]any{"oids": strs(lines)}, nil
	case "pack.inspect", "pack.install":
		b, ok, err := inputBytes(c, read)
		if !ok {
			return nil, err
		}
		return packOutput(c, b, op == "pack.inspect")
	case "pack.manifest":
		m, err := b64Field(c, out["manifest_body_b64"])
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(m)
		return map[string]any{"pack_id": "sha256:" + hex.EncodeToString(sum[:])}, nil
	}
	return nil, nil
}

func schemaOf(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return "1"
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func b64Field(c map[string]any, v any) ([]byte, error) {
	s, _ := v.(string)
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: output base64: %w", c["id"], err)
	}
	return b, nil
}

func envelopeOID(c map[string]any, v any, algo string) (map[string]any, error) {
	b, err := b64Field(c, v)
	if err != nil {
		return nil, err
	}
	typ, schema, body, ok := splitEnvelope(b)
	if !ok {
		return nil, fmt.Errorf("%s: output is not an envelope", c["id"])
	}
	return map[string]any{"oid": hashPreimage(algo, typ, schema, body)}, nil
}

// packOutput reads a well-formed frame's manifest with encoding/json; the
// id is SHA-256 of the inflated manifest in both profiles.
func packOutput(c map[string]any, frame []byte, inspect bool) (map[string]any, error) {
	in, ok := inflate(frame)
	if !isFrame(frame) || !ok || !in.complete {
		return nil, fmt.Errorf("%s: input is not a readable frame", c["id"])
	}
	var m struct {
		Objects []struct {
			ID string `json:"id"`
		} `json:"objects"`
		Shallow []string `json:"shallow"`
	}
	if err := json.Unmarshal(in.manifest, &m); err != nil {
		return nil, fmt.Errorf("%s: manifest: %w", c["id"], err)
	}
	sum := sha256.Sum256(in.manifest)
	ids := make([]string, len(m.Objects))
	for i, o := range m.Objects {
		ids[i] = o.ID
	}
	out := map[string]any{"pack_id": "sha256:" + hex.EncodeToString(sum[:]), "objects": strs(ids)}
	if inspect {
		out["shallow"] = strs(m.Shallow)
	}
	return out, nil
}

// checkDerived holds a case to its derived fields: each must equal the
// case's output (unordered arrays as sets), or, for a case pinned by
// output_sha256, the derived output must hash to it. With set, the digest
// is written instead of checked: the blake3 case's is re-derived.
func checkDerived(c map[string]any, d map[string]any, set bool) error {
	if d == nil {
		return nil
	}
	if want, ok := c["output_sha256"].(string); ok {
		got, err := outputDigest(d)
		if err != nil {
			return err
		}
		if set {
			c["output_sha256"] = got
			return nil
		}
		if got != want {
			return fmt.Errorf("%s: derived output hashes to %s, the case says %s", c["id"], got, want)
		}
		return nil
	}
	out, _ := c["output"].(map[string]any)
	for k, v := range d {
		if !reflect.DeepEqual(normal(k, v), normal(k, out[k])) {
			return fmt.Errorf("%s: output %s is %v, derived %v", c["id"], k, out[k], v)
		}
	}
	return nil
}

func normal(key string, v any) any {
	l, ok := v.([]any)
	if !ok || !unordered[key] {
		return v
	}
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = fmt.Sprint(e)
	}
	sort.Strings(s)
	return s
}

// outputDigest is the runner's output_sha256: SHA-256 of Python's
// json.dumps(output, sort_keys=True, separators=(",",":"),
// ensure_ascii=True) with the unordered arrays sorted.
func outputDigest(out map[string]any) (string, error) {
	sorted := map[string]any{}
	for k, v := range out {
		if s, ok := normal(k, v).([]string); ok {
			sorted[k] = strs(s)
		} else {
			sorted[k] = v
		}
	}
	var b bytes.Buffer
	if err := writeCompact(&b, sorted); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:]), nil
}
