package blake3suite

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// verbatim are the suite files that do not depend on the object hash.
var verbatim = []string{"REASON_CODES.md", "keys.json", "report.schema.json"}

// carried are the ops whose answer is a function of the document alone:
// an oid inside a signed document is a string the message covers, not a
// name the op resolves, so their cases are carried over unchanged.
var carried = map[string]bool{"sig.message": true, "sig.verify": true}

// dropped reports the cases with no blake3 counterpart: 51-compat's loads
// of objects from OpenTine's sha256 release repositories.
func dropped(c map[string]any) bool {
	in, _ := c["input"].(map[string]any)
	return c["op"] == "object.load" && in["path"] != nil
}

// Generate builds the blake3 suite from the sha256 suite in src. It
// returns every file of the suite by its slash path; the same src gives
// the same bytes on every run.
func Generate(src string) (map[string][]byte, error) {
	g := &generator{src: src, rw: newRewriter(), files: map[string][]byte{}}
	if err := g.load(); err != nil {
		return nil, err
	}
	for _, f := range g.families {
		for _, c := range f.cases {
			g.discover(c)
		}
	}
	// A pack id is rewritten where it is met as text, which may be before
	// its frame is: rewrite every case once so the map of manifest
	// digests is complete, and the order of map iteration cannot matter.
	for _, f := range g.families {
		for _, c := range f.cases {
			if !dropped(c) {
				if _, err := g.rewriteCase(c); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := range g.families {
		if err := g.family(&g.families[i]); err != nil {
			return nil, err
		}
	}
	if g.rw.err != nil {
		return nil, g.rw.err
	}
	for _, name := range verbatim {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return nil, err
		}
		g.files[name] = b
	}
	if err := g.manifest(); err != nil {
		return nil, err
	}
	return g.files, nil
}

type family struct {
	meta  map[string]any
	doc   map[string]any
	cases []map[string]any
}

type generator struct {
	src      string
	rw       *rewriter
	manif    map[string]any
	families []family
	files    map[string][]byte
}

func (g *generator) load() error {
	raw, err := os.ReadFile(filepath.Join(g.src, "MANIFEST.json"))
	if err != nil {
		return err
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("MANIFEST.json: %w", err)
	}
	g.manif, _ = v.(map[string]any)
	metas, _ := g.manif["families"].([]any)
	for _, m := range metas {
		meta, _ := m.(map[string]any)
		file, _ := meta["file"].(string)
		raw, err := g.readOld(file)
		if err != nil {
			return err
		}
		v, err := decodeJSON(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		doc, _ := v.(map[string]any)
		f := family{meta: meta, doc: doc}
		cs, _ := doc["cases"].([]any)
		for _, c := range cs {
			cm, ok := c.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: a case is not an object", file)
			}
			f.cases = append(f.cases, cm)
		}
		g.families = append(g.families, f)
	}
	return nil
}

// readOld reads a file of the sha256 suite, refusing paths that leave it.
func (g *generator) readOld(rel string) ([]byte, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("suite path %q leaves the suite", rel)
	}
	return os.ReadFile(filepath.Join(g.src, filepath.FromSlash(rel)))
}

func (g *generator) readNew(rel string) ([]byte, error) {
	if b, ok := g.files[rel]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("generated suite has no %s", rel)
}

// discover registers the objects a case spells out.
func (g *generator) discover(c map[string]any) {
	walkStrings("", c, func(key, s string) {
		if b, ok := b64Payload(key, s); ok {
			g.rw.discover(b)
		}
	})
	if b, ok, _ := inputBytes(c, g.readOld); ok {
		g.rw.discover(b)
	}
	args, _ := c["args"].(map[string]any)
	out, _ := c["output"].(map[string]any)
	switch c["op"] {
	case "oid.derive":
		if b, ok, _ := inputBytes(c, g.readOld); ok {
			h, _ := args["header"].(map[string]any)
			typ, _ := h["type"].(string)
			g.rw.register(typ, schemaOf(h["schema"]), b)
		}
	case "envelope.decode":
		if body, err := b64Field(c, out["body_b64"]); err == nil && out["type"] != nil {
			typ, _ := out["type"].(string)
			g.rw.register(typ, schemaOf(out["schema"]), body)
		}
	case "object.put":
		if body, err := b64Field(c, out["body_b64"]); err == nil {
			typ, _ := args["type"].(string)
			g.rw.register(typ, schemaOf(args["schema"]), body)
		}
	}
}

// b64Payload decodes a string that carries bytes: a *_b64 field, or a
// base64 envelope (an args.objects entry, a pack.manifest input).
func b64Payload(key, s string) ([]byte, bool) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || s == "" {
		return nil, false
	}
	if strings.HasSuffix(key, "_b64") {
		return b, true
	}
	_, _, _, ok := splitEnvelope(b)
	return b, ok
}

func walkStrings(key string, v any, f func(key, s string)) {
	switch x := v.(type) {
	case string:
		f(key, x)
	case []any:
		for _, e := range x {
			walkStrings(key, e, f)
		}
	case map[string]any:
		for k, e := range x {
			walkStrings(k, e, f)
		}
	}
}

// rewriteValue returns v with every string rewritten: bytes through their
// base64, anything else as text.
func (g *generator) rewriteValue(key string, v any) any {
	switch x := v.(type) {
	case string:
		if b, ok := b64Payload(key, x); ok {
			return base64.StdEncoding.EncodeToString(g.rw.bytes(b))
		}
		return string(g.rw.text([]byte(x)))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = g.rewriteValue(key, e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = g.rewriteValue(k, e)
		}
		return out
	}
	return v
}

func (g *generator) family(f *family) error {
	var kept []any
	for _, c := range f.cases {
		if dropped(c) {
			continue
		}
		if err := checkDerivedFor(c, "sha256", g.readOld, false); err != nil {
			return fmt.Errorf("sha256 suite disagrees with the independent derivation: %w", err)
		}
		n, err := g.rewriteCase(c)
		if err != nil {
			return err
		}
		if err := checkDerivedFor(n, "blake3", g.readNew, true); err != nil {
			return fmt.Errorf("blake3 rewrite disagrees with the independent derivation: %w", err)
		}
		kept = append(kept, n)
	}
	f.doc["cases"] = kept
	file, _ := f.meta["file"].(string)
	b, err := encodeJSON(f.doc)
	if err != nil {
		return err
	}
	g.files[file] = b
	return nil
}

func checkDerivedFor(c map[string]any, algo string, read blobReader, set bool) error {
	d, err := derive(c, algo, read)
	if err != nil {
		return err
	}
	return checkDerived(c, d, set)
}

// rewriteCase returns the blake3 case for c.
func (g *generator) rewriteCase(c map[string]any) (map[string]any, error) {
	if carried[fmt.Sprint(c["op"])] {
		return c, nil
	}
	n, _ := g.rewriteValue("", c).(map[string]any)
	in, _ := n["input"].(map[string]any)
	if gen, ok := in["gen"].(map[string]any); ok && gen["kind"] == "oids" {
		gen["object_hash"] = "blake3"
	}
	if blob, ok := in["blob"].(string); ok {
		name, err := g.blob(blob)
		if err != nil {
			return nil, err
		}
		in["blob"] = name
	}
	if c["op"] == "attest.sign" {
		if err := g.resign(c, n); err != nil {
			return nil, err
		}
	}
	if err := g.inputDigest(c, n); err != nil {
		return nil, err
	}
	return n, nil
}

// blob rewrites a blob input file and names the new one by its SHA-256,
// as the suite names its frames and blobs.
func (g *generator) blob(rel string) (string, error) {
	old, err := g.readOld(rel)
	if err != nil {
		return "", err
	}
	b := g.rw.bytes(old)
	sum := sha256.Sum256(b)
	dir := path.Dir(rel)
	ext := path.Ext(rel)
	name := dir + "/" + hex.EncodeToString(sum[:]) + ext
	g.files[name] = b
	return name, nil
}

// inputDigest re-computes input.sha256 when the input's bytes changed.
func (g *generator) inputDigest(old, n map[string]any) error {
	in, _ := n["input"].(map[string]any)
	if _, ok := in["sha256"]; !ok {
		return nil
	}
	if equalJSON(in, old["input"]) {
		return nil // unchanged: a path input, or the 256 MiB frame
	}
	b, ok, err := inputBytes(n, g.readNew)
	if err != nil || !ok {
		return fmt.Errorf("%s: cannot assemble the rewritten input: %v", n["id"], err)
	}
	sum := sha256.Sum256(b)
	in["sha256"] = hex.EncodeToString(sum[:])
	return nil
}

func equalJSON(a, b any) bool {
	x, err1 := encodeJSON(a)
	y, err2 := encodeJSON(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
