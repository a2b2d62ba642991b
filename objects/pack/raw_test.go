package pack

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRawBlocksRoundTrip takes every block of a pack with RawBlocks,
// decodes each with DecodeRawBlock and writes them with AddBlock into a
// pack of another store: the new pack verifies, holds the same payload
// bytes, and every object reads back byte for byte.
func TestRawBlocksRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, a := range []objects.Algo{objects.SHA256, objects.BLAKE3} {
		objs := spTestObjects(t, a, 300)
		src, err := Open(t.TempDir(), a)
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		if _, err := src.WritePack(ctx, objs, Options{}); err != nil {
			t.Fatal(err)
		}
		ids := make([]objects.OID, len(objs))
		for i, o := range objs {
			ids[i] = o.ID
		}
		blocks, covered, err := src.RawBlocks(ctx, ids)
		if err != nil || len(blocks) < 10 {
			t.Fatalf("%d blocks, %v", len(blocks), err)
		}
		for i, c := range covered {
			if !c {
				t.Fatalf("object %d in no block", i)
			}
		}
		for i := range blocks {
			raw, err := DecodeRawBlock(&blocks[i], nil)
			if err != nil || len(raw) != int(blocks[i].RawLen) {
				t.Fatalf("block %d: %v", i, err)
			}
		}
		dst, err := Open(t.TempDir(), a)
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		name, err := dst.WritePackBlocks(ctx, blocks, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := dst.Verify(ctx, name); err != nil || n != len(objs) {
			t.Fatalf("verify: %d, %v", n, err)
		}
		for _, o := range objs {
			got, err := dst.Get(ctx, o.ID)
			if err != nil || !bytes.Equal(got.Stored(), o.Stored()) {
				t.Fatalf("%s: %v", o.ID, err)
			}
		}
		packed, err := os.ReadFile(filepath.Join(dst.Dir(), name+".pack"))
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range blocks {
			if !bytes.Contains(packed, b.Payload) {
				t.Fatalf("block %d was not written as it was", i)
			}
		}
	}
}

// TestRawBlocksLeavesOut: a block shared with an object not asked for, and
// a block whose CRC-32C does not match, are not handed out; their objects
// are left uncovered for the caller to send one by one. AddBlock refuses
// an object the pack already holds.
func TestRawBlocksLeavesOut(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	objs := spTestObjects(t, a, 100)
	st, err := Open(t.TempDir(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	name, err := st.WritePack(ctx, objs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]objects.OID, len(objs))
	for i, o := range objs {
		all[i] = o.ID
	}
	full, _, err := st.RawBlocks(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	// Leave out the first block's last object: that block must go.
	first := full[0].IDs
	ids := append([]objects.OID(nil), all[:len(first)-1]...)
	ids = append(ids, all[len(first):]...)
	blocks, covered, err := st.RawBlocks(ctx, ids)
	if err != nil || len(blocks) != len(full)-1 {
		t.Fatalf("%d blocks of %d, %v", len(blocks), len(full), err)
	}
	for i := range len(first) - 1 {
		if covered[i] {
			t.Fatalf("object %d of a shared block is covered", i)
		}
	}
	// Damage the second block's payload: its objects are left out too.
	path := filepath.Join(st.Dir(), name+".pack")
	packed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(packed, full[1].Payload) + len(full[1].Payload)/2
	packed[at] ^= 1
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, packed, 0o600); err != nil {
		t.Fatal(err)
	}
	blocks, covered, err = st.RawBlocks(ctx, all)
	if err != nil || len(blocks) != len(full)-1 || covered[len(first)] {
		t.Fatalf("after damage: %d blocks of %d, %v", len(blocks), len(full), err)
	}
	w, err := NewWriter(t.TempDir(), a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Add(objs[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.AddBlock(&full[0]); !errors.Is(err, ErrBadRawBlock) {
		t.Fatalf("AddBlock of an object already added: %v", err)
	}
}
