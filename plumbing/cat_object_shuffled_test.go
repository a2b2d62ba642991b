package plumbing

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

func TestCatObjectBatchShuffledPackedMatchesObjects(t *testing.T) {
	// 6,000 ~1 KiB objects in one storage pack (about 6 MiB decoded, three
	// times the block cache's start), asked for twice each in random
	// order: the cache evicts, regrets and grows while workers read, and
	// every answer must still be the object's exact bytes, in input order.
	r := newRepo(t, objects.BLAKE3)
	rng := rand.New(rand.NewPCG(7, 8))
	objs := make([]*objects.Object, 6000)
	for i := range objs {
		body := fmt.Appendf(nil, `{"seq":%d,"text":"`, i)
		for len(body) < 1000 {
			body = strconv.AppendUint(append(body, ' '), rng.Uint64(), 36)
		}
		objs[i] = objects.NewBlob(r.Algo(), append(body, `"}`...))
	}
	if _, err := r.Packs().WritePack(context.Background(), objs, pack.Options{}); err != nil {
		t.Fatal(err)
	}
	order := append(rng.Perm(len(objs)), rng.Perm(len(objs))...)
	var in, want strings.Builder
	for _, i := range order {
		o := objs[i]
		in.WriteString(o.ID.String() + "\n")
		want.WriteString(o.ID.String() + " blob " + strconv.Itoa(len(o.Body)) + "\n" + string(o.Body) + "\n")
	}
	got, res, err := batchOutput(t, r, in.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Objects != len(order) || res.Missing != 0 {
		t.Fatalf("result %+v, want %d objects", res, len(order))
	}
	if got != want.String() {
		t.Fatal("shuffled reads from a pack differ from the objects written")
	}
}
