package plumbing

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// batchOutput runs CatObjectBatch over input and renders git's format.
func batchOutput(t *testing.T, r *Repo, input string) (string, *CatBatchResult, error) {
	t.Helper()
	var out bytes.Buffer
	res, err := CatObjectBatch(context.Background(), r, CatBatchOptions{Input: strings.NewReader(input)}, func(e CatBatchEntry) error {
		out.Write(e.AppendHeader(nil))
		if e.Object != nil {
			out.Write(e.Object.Body)
			out.WriteByte('\n')
		}
		return nil
	})
	return out.String(), res, err
}

func TestCatObjectBatchAnswersEveryLineInOrder(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		blob := put(t, r, objects.NewBlob(r.Algo(), []byte("hello\n")))
		ev := putEvent(t, r, "first")
		evObj, err := r.Objects().Get(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		other := objects.NewBlob(r.Algo(), []byte("never stored")).ID
		input := ev.String() + "\r\n" + "no-such-ref\n" + other.String() + "\n" + blob.Hex()[:12] + "\n" + blob.String()
		got, res, err := batchOutput(t, r, input)
		if err != nil {
			t.Fatal(err)
		}
		want := ev.String() + " event " + strconv.Itoa(len(evObj.Body)) + "\n" + string(evObj.Body) + "\n" +
			"no-such-ref missing\n" +
			other.String() + " missing\n" +
			blob.String() + " blob 6\nhello\n\n" +
			blob.String() + " blob 6\nhello\n\n"
		if got != want {
			t.Fatalf("output:\n%q\nwant:\n%q", got, want)
		}
		if res.Objects != 3 || res.Missing != 2 {
			t.Fatalf("result %+v, want 3 objects and 2 missing", res)
		}
	})
}

func TestCatObjectBatchRefusesOverlongLine(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	for _, n := range []int{MaxBatchLine + 1, 100 << 10} {
		_, _, err := batchOutput(t, r, strings.Repeat("a", n)+"\n")
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("%d-byte line: err %v, want ErrBadInput naming line 1", n, err)
		}
	}
}

func TestCatObjectBatchStopsAtCorruptObject(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	good := put(t, r, objects.NewBlob(r.Algo(), []byte("good")))
	bad := put(t, r, objects.NewBlob(r.Algo(), []byte("bad")))
	rel, err := objects.LoosePath(bad)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.Root(), filepath.FromSlash(rel))
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, res, err := batchOutput(t, r, good.String()+"\n"+bad.String()+"\n"+good.String()+"\n")
	if err == nil || !strings.Contains(err.Error(), bad.String()) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v, want an error naming %s on line 2", err, bad)
	}
	if got != good.String()+" blob 4\ngood\n" || res.Objects != 1 {
		t.Fatalf("output before the failure %q (%+v), want only the first object", got, res)
	}
}

func TestCatObjectBatchNeedsInput(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	if _, err := CatObjectBatch(context.Background(), r, CatBatchOptions{}, func(CatBatchEntry) error { return nil }); !errors.Is(err, ErrBadInput) {
		t.Fatalf("err %v, want ErrBadInput", err)
	}
}

func TestCatObjectBatchStopsWhenEmitFails(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	id := put(t, r, objects.NewBlob(r.Algo(), []byte("x")))
	stop := errors.New("reader went away")
	calls := 0
	_, err := CatObjectBatch(context.Background(), r, CatBatchOptions{Input: strings.NewReader(strings.Repeat(id.String()+"\n", 3))}, func(CatBatchEntry) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err %v after %d calls, want the emit error after 1", err, calls)
	}
}

func TestCatObjectBatchKeepsOrderAcrossJobs(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	var in, want strings.Builder
	for i := range 10 * batchChunk * batchAhead {
		if i%7 == 3 {
			in.WriteString("absent-" + strconv.Itoa(i) + "\n")
			want.WriteString("absent-" + strconv.Itoa(i) + " missing\n")
			continue
		}
		body := "object " + strconv.Itoa(i)
		id := put(t, r, objects.NewBlob(r.Algo(), []byte(body)))
		in.WriteString(id.String() + "\n")
		want.WriteString(id.String() + " blob " + strconv.Itoa(len(body)) + "\n" + body + "\n")
	}
	got, _, err := batchOutput(t, r, in.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatalf("output differs from input order:\n%s\nwant:\n%s", got, want.String())
	}
}
