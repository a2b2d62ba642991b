package memory_test

import (
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
	"github.com/tinehq/tine/objects/objectstest"
)

func TestMemoryStoreSuite(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		return memory.New(a)
	})
}

func TestMemoryStoreLen(t *testing.T) {
	m := memory.New(objects.BLAKE3)
	objs := objectstest.Blobs(objects.BLAKE3, "len", 5)
	objs = append(objs, objs[0])
	if err := objects.PutAll(t.Context(), m, objs); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 5 {
		t.Fatalf("Len = %d, want 5", m.Len())
	}
}
