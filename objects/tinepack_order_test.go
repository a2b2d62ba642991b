package objects

import (
	"bytes"
	"encoding/base64"
	"slices"
	"testing"
)

// TestPackManifestOrderIsWriterOnly answers issue 10 item 9 ("an unsorted
// manifest was accepted") from the SPEC: objects and shallow sorted by oid
// are writer-only properties that readers must not enforce (SPEC §2.8,
// "array order is unconstrained for readers"; conformance vector
// pack.inspect.objects-array-order-is-unconstrained). So a reader accepts
// both arrays unsorted and reports them as given, and tine's writer emits
// them sorted whatever order it is handed.
func TestPackManifestOrderIsWriterOnly(t *testing.T) {
	b := NewBlob(SHA256, []byte("b\n"))
	a := NewBlob(SHA256, []byte("a\n"))
	hi, lo := b, a
	if hi.ID.Compare(lo.ID) < 0 {
		hi, lo = lo, hi
	}
	entry := func(o *Object) string {
		return `{"data":"` + base64.StdEncoding.EncodeToString(o.Stored()) + `","id":"` + o.ID.String() + `"}`
	}
	far := "event:sha256:" + string(bytes.Repeat([]byte("f"), 64))
	near := "event:sha256:" + string(bytes.Repeat([]byte("0"), 64))
	body := `{"objects":[` + entry(hi) + `,` + entry(lo) + `],"shallow":["` + far + `","` + near + `"],"version":1}`
	pf, err := InspectPack(tpFrame(t, body), SHA256)
	if err != nil {
		t.Fatalf("unsorted manifest refused: %v", err)
	}
	if pf.Objects[0].ID != hi.ID || pf.Shallow[0].String() != far {
		t.Fatalf("reader reordered the manifest: %v %v", pf.ObjectIDs(), pf.Shallow)
	}
	frame, _, err := WritePack([]*Object{hi, lo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pf, err = InspectPack(frame, SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if ids := pf.ObjectIDs(); !slices.IsSortedFunc(ids, func(x, y OID) int { return x.Compare(y) }) {
		t.Fatalf("writer emitted %v, want oid order", ids)
	}
}
