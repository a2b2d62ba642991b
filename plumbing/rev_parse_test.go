package plumbing

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// collidingBlobs finds two blobs whose digests share the first four hex
// digits (a birthday search over a few thousand candidates).
func collidingBlobs(t *testing.T, a objects.Algo) (*objects.Object, *objects.Object) {
	seen := map[string]*objects.Object{}
	for i := 0; i < 1<<16; i++ {
		o := objects.NewBlob(a, []byte(fmt.Sprint(i)))
		p := o.ID.Hex()[:4]
		if prev, ok := seen[p]; ok {
			return prev, o
		}
		seen[p] = o
	}
	t.Fatal("no 4-hex collision found")
	return nil, nil
}

func TestRevParse(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		run1, evs := putChainRun(t, r, "a", 2)
		run2, _ := putChainRun(t, r, "b", 1)
		for _, u := range []UpdateRefOptions{
			{Ref: "heads/main", New: run1.String()}, {Ref: "heads/main", New: run2.String()},
			{Ref: "tags/v1", New: evs[0].String()},
		} {
			if _, err := UpdateRef(ctx, r, u); err != nil {
				t.Fatal(err)
			}
		}
		ok := map[string]objects.OID{
			run1.String():         run1,
			run1.Hex()[:12]:       run1,
			run1.Hex():            run1,
			"heads/main":          run2,
			"refs/heads/main":     run2,
			"main":                run2,
			"v1":                  evs[0],
			"tags/v1":             evs[0],
			"main@{0}":            run2,
			"main@{1}":            run1,
			"refs/heads/main@{1}": run1,
		}
		for rev, want := range ok {
			res, err := RevParse(ctx, r, RevParseOptions{Revision: rev})
			if err != nil || res.OID != want.String() || res.Type != want.Type {
				t.Errorf("RevParse(%q) = %+v, %v; want %s", rev, res, err, want)
			}
		}
		if res, _ := RevParse(ctx, r, RevParseOptions{Revision: "main"}); res.Ref != "heads/main" {
			t.Errorf("ref of main = %q", res.Ref)
		}
		missing := r.Algo().Derive(objects.TypeRun, 1, []byte("{}"))
		other := objects.SHA256
		if r.Algo() == other {
			other = objects.BLAKE3
		}
		errs := map[string]error{
			"nosuch":         ErrUnknownRevision,
			"heads/nosuch":   ErrUnknownRevision,
			"ffffffffff":     ErrUnknownRevision,
			missing.String(): ErrUnknownRevision,
			"main@{2}":       ErrUnknownRevision,
			"":               ErrBadRevision,
			"Main":           ErrBadRevision,
			"main@{x}":       ErrBadRevision,
			"main@{1":        ErrBadRevision,
			"@{1}":           ErrBadRevision,
			"run:" + string(other) + ":" + run1.Hex(): ErrBadRevision,
			"has space": ErrBadRevision,
		}
		for rev, want := range errs {
			if _, err := RevParse(ctx, r, RevParseOptions{Revision: rev}); !errors.Is(err, want) {
				t.Errorf("RevParse(%q) = %v; want %v", rev, err, want)
			}
		}
		// A short name in two namespaces is ambiguous.
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "tags/main", New: run1.String()}); err != nil {
			t.Fatal(err)
		}
		var ae *AmbiguousError
		if _, err := RevParse(ctx, r, RevParseOptions{Revision: "main"}); !errors.As(err, &ae) || len(ae.Candidates) != 2 {
			t.Fatalf("ambiguous short name: %v", err)
		}
		if res, err := RevParse(ctx, r, RevParseOptions{Revision: "heads/main"}); err != nil || res.OID != run2.String() {
			t.Fatalf("full name still resolves: %+v, %v", res, err)
		}
		// A hex prefix shared by two objects is ambiguous and lists both.
		a, b := collidingBlobs(t, r.Algo())
		put(t, r, a)
		put(t, r, b)
		_, err := RevParse(ctx, r, RevParseOptions{Revision: a.ID.Hex()[:4]})
		if !errors.As(err, &ae) || len(ae.Candidates) != 2 || !errors.Is(err, ErrAmbiguousRevision) {
			t.Fatalf("ambiguous prefix: %v", err)
		}
		if res, err := RevParse(ctx, r, RevParseOptions{Revision: a.ID.Hex()[:20]}); err != nil || res.OID != a.ID.String() {
			t.Fatalf("longer prefix: %+v, %v", res, err)
		}
		// Three hex digits are no prefix, only a possible short ref name.
		if _, err := RevParse(ctx, r, RevParseOptions{Revision: a.ID.Hex()[:3]}); !errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("3-digit prefix: %v", err)
		}
	})
}

func TestCatObject(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		blob := put(t, r, objects.NewBlob(r.Algo(), []byte("raw\x00bytes\n")))
		ev := putEvent(t, r, "x")
		res, err := CatObject(ctx, r, CatObjectOptions{Revision: blob.String()})
		if err != nil || string(res.Output) != "raw\x00bytes\n" || res.Encoding != "raw" || res.BodyB64 == "" || res.Body != nil {
			t.Fatalf("blob raw: %+v, %v", res, err)
		}
		if res, _ := CatObject(ctx, r, CatObjectOptions{Revision: blob.String(), Mode: CatPretty}); string(res.Output) != "raw\x00bytes\n" {
			t.Fatalf("blob pretty: %q", res.Output)
		}
		res, err = CatObject(ctx, r, CatObjectOptions{Revision: ev.Hex()[:10], Mode: CatPretty})
		want := "{\n  \"kind\": \"model\",\n  \"label\": \"x\",\n  \"parent_ids\": []\n}\n"
		if err != nil || string(res.Output) != want || string(res.Body) != `{"kind":"model","label":"x","parent_ids":[]}` {
			t.Fatalf("event pretty: %q, %v", res.Output, err)
		}
		if res, _ := CatObject(ctx, r, CatObjectOptions{Revision: ev.String(), Mode: CatType}); string(res.Output) != "event\n" {
			t.Fatalf("type: %q", res.Output)
		}
		if res, _ := CatObject(ctx, r, CatObjectOptions{Revision: ev.String(), Mode: CatSize}); string(res.Output) != "44\n" || res.Size != 44 {
			t.Fatalf("size: %q", res.Output)
		}
		if _, err := CatObject(ctx, r, CatObjectOptions{Revision: ev.String(), Mode: "tree"}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("bad mode: %v", err)
		}
		if _, err := CatObject(ctx, r, CatObjectOptions{Revision: "nosuch"}); !errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("unknown: %v", err)
		}
	})
}

func TestCountObjects(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		putChainRun(t, r, "a", 3)
		put(t, r, objects.NewBlob(r.Algo(), []byte("12345")))
		res, err := CountObjects(ctx, r, CountObjectsOptions{})
		if err != nil || res.Count != 5 || res.ByType[objects.TypeEvent].Count != 3 || res.ByType[objects.TypeRun].Count != 1 {
			t.Fatalf("count: %+v, %v", res, err)
		}
		blobSize := int64(len(objects.NewBlob(r.Algo(), []byte("12345")).Stored()))
		if res.ByType[objects.TypeBlob].Size != blobSize || res.Size <= blobSize {
			t.Fatalf("sizes: %+v", res)
		}
	})
}
