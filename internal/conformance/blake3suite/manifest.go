package blake3suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// manifest writes MANIFEST.json: the sha256 suite's, with the families'
// counts, the totals and the file digests of this suite, and the profile.
func (g *generator) manifest() error {
	m := g.manif
	var metas []any
	totals := map[string]int{}
	opsUsed := map[string]bool{}
	for _, f := range g.families {
		cs, _ := f.doc["cases"].([]any)
		counts := map[string]int{"count": len(cs)}
		ops := map[string]bool{}
		for _, c := range cs {
			cm, ok := c.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: a case is not an object", f.meta["file"])
			}
			counts[fmt.Sprint(cm["tier"])]++
			if e := fmt.Sprint(cm["expect"]); e != "accept" {
				counts[e]++
			}
			ops[fmt.Sprint(cm["op"])] = true
			opsUsed[fmt.Sprint(cm["op"])] = true
		}
		for _, k := range []string{"count", "core", "stress", "reject", "verdict"} {
			f.meta[k] = numberOf(counts[k])
			totals[k] += counts[k]
		}
		f.meta["ops"] = sortedKeys(ops)
		metas = append(metas, f.meta)
	}
	m["families"] = metas
	t, _ := m["totals"].(map[string]any)
	t["cases"], t["core"], t["stress"] = numberOf(totals["count"]), numberOf(totals["core"]), numberOf(totals["stress"])
	t["reject"], t["verdict"] = numberOf(totals["reject"]), numberOf(totals["verdict"])
	t["families"], t["ops"] = numberOf(len(metas)), numberOf(len(opsUsed))
	files := map[string]any{}
	for name, b := range g.files {
		sum := sha256.Sum256(b)
		files[name] = hex.EncodeToString(sum[:])
	}
	m["files"] = files
	m["generated_by"] = "tine internal/conformance/blake3suite from opentine 0.9.0's suite_version 1"
	m["object_hash"] = "blake3"
	b, err := encodeJSON(m)
	if err != nil {
		return err
	}
	g.files["MANIFEST.json"] = b
	return nil
}

func sortedKeys(m map[string]bool) []any {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strs(ks)
}

func numberOf(n int) json.Number { return json.Number(fmt.Sprint(n)) }
