package blake3suite

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestSuitesDifferExactlyWhereTheHashMatters compares the two suites case
// by case with every byte payload opened up (base64 decoded, frames
// inflated, manifest entries decoded, blob files read):
//
//   - a case is hash-dependent when it names a sha256 object id (or a
//     sha256 repository descriptor, or generates oids) outside the
//     signature ops; exactly those cases differ between the suites;
//   - with every digest and profile name masked, each blake3 case equals
//     its sha256 case: nothing but hashes changed, so every vector still
//     tests what OpenTine wrote it to test (a checksum mismatch stays one,
//     truncated stays truncated, at-bound stays at the bound);
//   - no hash-dependent blake3 case names a sha256 object any more.
func TestSuitesDifferExactlyWhereTheHashMatters(t *testing.T) {
	old := loadCases(t, srcDir)
	known := knownDigests(t)
	neu := loadCases(t, dstDir)
	dependent, changed := 0, 0
	for id, oc := range old {
		nc, ok := neu[id]
		if !ok {
			if !dropped(oc) {
				t.Errorf("%s: missing from the blake3 suite", id)
			}
			continue
		}
		oe, ne := expand(t, srcDir, oc), expand(t, dstDir, nc)
		dep := hashDependent(oc, oe, known)
		same := equalJSON(oc, nc)
		if dep {
			dependent++
		}
		if !same {
			changed++
		}
		if dep == same {
			t.Errorf("%s [%s]: hash-dependent %v but changed %v", id, oc["op"], dep, !same)
		}
		if mask(oe) != mask(ne) {
			t.Errorf("%s: differs in more than its hashes:\nsha256 %s\nblake3 %s", id, mask(oe), mask(ne))
		}
		if dep && oidPattern.MatchString(ne) {
			t.Errorf("%s: still names a sha256 object: %s", id, oidPattern.FindString(ne))
		}
	}
	for id := range neu {
		if _, ok := old[id]; !ok {
			t.Errorf("%s: in the blake3 suite only", id)
		}
	}
	t.Logf("%d cases, %d hash-dependent, %d changed", len(neu), dependent, changed)
	if dependent < 150 {
		t.Errorf("only %d hash-dependent cases", dependent)
	}
}

func loadCases(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	g := &generator{src: dir}
	if err := g.load(); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, f := range g.families {
		for _, c := range f.cases {
			out[fmt.Sprint(c["id"])] = c
		}
	}
	return out
}

// knownDigests are the digests of the objects the sha256 suite spells out.
func knownDigests(t *testing.T) map[string]bool {
	t.Helper()
	g := &generator{src: srcDir, rw: newRewriter()}
	if err := g.load(); err != nil {
		t.Fatal(err)
	}
	for _, f := range g.families {
		for _, c := range f.cases {
			g.discover(c)
		}
	}
	out := map[string]bool{}
	for d := range g.rw.digests {
		out[d] = true
	}
	return out
}

// derivesOID are the ops whose accepted output names the object the input
// spells out.
var derivesOID = map[string]bool{"oid.derive": true, "envelope.decode": true, "envelope.encode": true,
	"object.put": true, "object.load": true, "attest.sign": true}

var configSha256 = regexp.MustCompile(`object_hash[^a-z0-9]{1,12}sha256`)

// hashDependent is the rule the generator is held to, stated on the data:
// outside the signature ops, a case depends on the hash when it names a
// sha256 object or a known object's digest, holds a sha256 repository
// descriptor, generates oids, or derives an oid from its input.
func hashDependent(c map[string]any, expanded string, known map[string]bool) bool {
	op := fmt.Sprint(c["op"])
	if op == "sig.message" || op == "sig.verify" { // stated here, not taken from the generator

		return false
	}
	in, _ := c["input"].(map[string]any)
	gen, _ := in["gen"].(map[string]any)
	if oidPattern.MatchString(expanded) || configSha256.MatchString(expanded) ||
		gen["kind"] == "oids" || derivesOID[op] && c["expect"] == "accept" {
		return true
	}
	for _, h := range maskHex.FindAllString(expanded, -1) {
		if known[h] {
			return true
		}
	}
	return false
}

var (
	maskHex    = regexp.MustCompile(`[0-9a-f]{64}`)
	maskSplit  = regexp.MustCompile(`[0-9a-f]{2}/[0-9a-f]{62}`)
	maskAlgo   = regexp.MustCompile(`sha256|blake3`)
	maskDigest = regexp.MustCompile(`"(output_)?sha256": "[0-9a-f]{64}",?`)
)

func mask(s string) string {
	s = maskDigest.ReplaceAllString(s, "")
	s = maskSplit.ReplaceAllString(s, "#")
	s = maskHex.ReplaceAllString(s, "#")
	return maskAlgo.ReplaceAllString(s, "H")
}

// expand returns the case as JSON text with its payloads opened up.
func expand(t *testing.T, dir string, c map[string]any) string {
	t.Helper()
	v := expandValue("", c)
	m := v.(map[string]any)
	in, _ := m["input"].(map[string]any)
	if gen, ok := in["gen"].(map[string]any); ok {
		delete(gen, "object_hash") // the profile the lines name: masked anyway
	}
	if blob, ok := in["blob"].(string); ok {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(blob)))
		if err != nil {
			t.Fatal(err)
		}
		in["blob"] = expandBytes(b)
	}
	b, err := encodeJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func expandValue(key string, v any) any {
	switch x := v.(type) {
	case string:
		if b, ok := b64Payload(key, x); ok {
			return expandBytes(b)
		}
		if key == "data" { // a manifest entry a vector broke on purpose
			if b, ok := lenientBase64(x); ok {
				return "broken-base64 " + expandBytes(b)
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = expandValue(key, e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = expandValue(k, e)
		}
		return out
	}
	return v
}

// expandBytes opens a payload: a frame becomes its header facts and its
// manifest, a manifest's entries their envelopes; the rest is quoted.
func expandBytes(b []byte) string {
	if isFrame(b) {
		in, ok := inflate(b)
		if !ok {
			return "frame(not zlib) " + strconv.Quote(string(b[frameHeader:]))
		}
		sum := sha256.Sum256(in.manifest)
		return fmt.Sprintf("frame(digest ok %v, complete %v, trailing %q) %s",
			bytes.Equal(sum[:], b[len(frameMagic):frameHeader]), in.complete, in.trailing, expandBytes(in.manifest))
	}
	s := dataField.ReplaceAllStringFunc(string(b), func(m string) string {
		inner := m[len(`"data":"`) : len(m)-1]
		if raw, ok := lenientBase64(inner); ok {
			return `"data":` + strconv.Quote(expandBytes(raw))
		}
		return m
	})
	return strconv.Quote(s)
}
