package plumbing

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestHashObjectVectors(t *testing.T) {
	ctx := context.Background()
	res, err := HashObject(ctx, nil, HashObjectOptions{Stdin: bytes.NewReader([]byte("hello\n")), ObjectFormat: objects.SHA256})
	if err != nil || res.Objects[0].OID != "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008" {
		t.Fatalf("blob = %+v, %v", res, err)
	}
	body := `{"cost":0,"kind":"model","parent_ids":[]}`
	res, err = HashObject(ctx, nil, HashObjectOptions{Type: objects.TypeEvent, Stdin: bytes.NewReader([]byte(body)), ObjectFormat: objects.SHA256})
	if err != nil || res.Objects[0].OID != "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7" {
		t.Fatalf("event = %+v, %v", res, err)
	}
	// Outside a repository blake3 is the default.
	res, err = HashObject(ctx, nil, HashObjectOptions{Stdin: bytes.NewReader([]byte("hello\n"))})
	if err != nil || objects.BLAKE3.Derive(objects.TypeBlob, 1, []byte("hello\n")).String() != res.Objects[0].OID {
		t.Fatalf("blake3 blob = %+v, %v", res, err)
	}
}

func TestHashObjectRules(t *testing.T) {
	ctx := context.Background()
	in := func(s string) *bytes.Reader { return bytes.NewReader([]byte(s)) }
	_, err := HashObject(ctx, nil, HashObjectOptions{Type: objects.TypeEvent, Stdin: in(`{"kind":"model", "cost":0}`)})
	if !objects.HasReason(err, objects.ReasonEnvelopeBodyNonCanonical) {
		t.Fatalf("non-canonical event: %v", err)
	}
	res, err := HashObject(ctx, nil, HashObjectOptions{Type: objects.TypeEvent, Canonicalize: true, Stdin: in(`{"kind":"model", "cost":0}`), ObjectFormat: objects.SHA256})
	if err != nil || res.Objects[0].OID != objects.SHA256.Derive(objects.TypeEvent, 1, []byte(`{"cost":0,"kind":"model"}`)).String() {
		t.Fatalf("canonicalized: %+v, %v", res, err)
	}
	if _, err := HashObject(ctx, nil, HashObjectOptions{Type: objects.TypeEvent, Canonicalize: true, Stdin: in(`{"a":1,"a":2}`)}); err == nil {
		t.Fatal("duplicate keys accepted")
	}
	if _, err := HashObject(ctx, nil, HashObjectOptions{Type: objects.TypeRun, Stdin: in(`{"events":"x"}`)}); !objects.HasReason(err, objects.ReasonLinkRunEventsInvalid) {
		t.Fatalf("structurally bad run: %v", err)
	}
	if _, err := HashObject(ctx, nil, HashObjectOptions{Write: true, Stdin: in("x")}); !errors.Is(err, ErrNoRepository) {
		t.Fatalf("write without repo: %v", err)
	}
	if _, err := HashObject(ctx, nil, HashObjectOptions{}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("no input: %v", err)
	}
	if _, err := HashObject(ctx, nil, HashObjectOptions{Type: "tree", Stdin: in("x")}); !errors.Is(err, ErrBadInput) {
		t.Fatalf("unknown type: %v", err)
	}
}

func TestHashObjectWrite(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		dir := t.TempDir()
		f := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(f, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := HashObject(ctx, r, HashObjectOptions{Write: true, Paths: []string{f}})
		if err != nil || !res.Objects[0].Written || res.Objects[0].Source != f || res.Objects[0].Size != 4 {
			t.Fatalf("write blob: %+v, %v", res, err)
		}
		id, _ := objects.ParseOID(res.Objects[0].OID)
		if ok, _ := r.Objects().Has(ctx, id); !ok {
			t.Fatal("blob not stored")
		}
		// A run naming a missing event is refused on write, allowed on hash.
		ev := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"model"}`)
		run := chainRun(t, r.Algo(), []objects.OID{ev.ID})
		if _, err := HashObject(ctx, r, HashObjectOptions{Type: objects.TypeRun, Write: true, Stdin: bytes.NewReader(run.Body)}); !objects.HasReason(err, objects.ReasonLinkMissingObject) {
			t.Fatalf("run with missing event: %v", err)
		}
		if ok, _ := r.Objects().Has(ctx, run.ID); ok {
			t.Fatal("refused run was stored")
		}
		if _, err := HashObject(ctx, r, HashObjectOptions{Type: objects.TypeRun, Stdin: bytes.NewReader(run.Body)}); err != nil {
			t.Fatalf("hash-only run: %v", err)
		}
		// Written bottom-up, event then run, it is accepted.
		if _, err := HashObject(ctx, r, HashObjectOptions{Type: objects.TypeEvent, Write: true, Stdin: bytes.NewReader(ev.Body)}); err != nil {
			t.Fatal(err)
		}
		res, err = HashObject(ctx, r, HashObjectOptions{Type: objects.TypeRun, Write: true, Stdin: bytes.NewReader(run.Body)})
		if err != nil || res.Objects[0].OID != run.ID.String() {
			t.Fatalf("run: %+v, %v", res, err)
		}
		other := objects.SHA256
		if r.Algo() == other {
			other = objects.BLAKE3
		}
		if _, err := HashObject(ctx, r, HashObjectOptions{ObjectFormat: other, Stdin: bytes.NewReader(nil)}); !errors.Is(err, ErrBadInput) {
			t.Fatalf("format mismatch: %v", err)
		}
	})
}

// TestHashObjectRedacts: secrets never reach an object, even through the
// plumbing verb: a blob is scrubbed and a JSON body walked before hashing.
func TestHashObjectRedacts(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	dir := t.TempDir()
	blob := filepath.Join(dir, "log.txt")
	ev := filepath.Join(dir, "event.json")
	if err := os.WriteFile(blob, []byte("api_key=sk-proj-abc123def456ghi789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ev, []byte(`{"attributes":{"password":"hunter22"},"kind":"tool"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		typ    objects.Type
		path   string
		secret string
	}{{objects.TypeBlob, blob, "sk-proj-abc123def456ghi789"}, {objects.TypeEvent, ev, "hunter22"}} {
		res, err := HashObject(context.Background(), r, HashObjectOptions{Type: tc.typ, Write: true, Paths: []string{tc.path}})
		if err != nil {
			t.Fatal(err)
		}
		id, err := objects.ParseOID(res.Objects[0].OID)
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.Objects().Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(o.Body), tc.secret) || !strings.Contains(string(o.Body), "[REDACTED]") {
			t.Errorf("%s stored as %q: secret not redacted", tc.typ, o.Body)
		}
	}
}
