package pack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestStoragePackWriteVanishedPackFails: a pack committed by WritePack
// whose files are removed before the store opens it (a prune that did
// not find its objects referenced) holds objects no other pack does, so
// the write fails, saying so, rather than reporting objects stored that
// are not. This holds whether the write is the store's first use (the
// packs Open left to open, opened with the new one) or not.
func TestStoragePackWriteVanishedPackFails(t *testing.T) {
	a := objects.BLAKE3
	for _, firstUse := range []bool{true, false} {
		dir := t.TempDir()
		objs := spTestObjects(t, a, 8)
		old := spWriteTestPack(t, dir, a, objs[:4], Options{})
		s := spOpenTestPacks(t, dir, a)
		if !firstUse {
			spPackNames(t, s) // opens the listed packs now
		}
		removed := ""
		openWindowHook = func(name string) {
			if name == old || removed != "" {
				return
			}
			removed = name
			for _, ext := range []string{".pack", ".idx"} {
				if err := os.Remove(filepath.Join(dir, name+ext)); err != nil {
					t.Error(err)
				}
			}
		}
		_, err := s.WritePack(context.Background(), objs[4:], Options{})
		openWindowHook = nil
		if removed == "" {
			t.Fatalf("first use %v: the new pack was never opened by name", firstUse)
		}
		if err == nil || !strings.Contains(err.Error(), "in no other pack") || !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("first use %v: a write whose pack vanished before it was opened: %v, want the objects reported in no pack", firstUse, err)
		}
		for _, o := range objs[:4] {
			spCheckGet(t, s, o)
		}
	}
}

// TestStoragePackFirstUseWriteBesideMerge is
// TestStoragePackAppendBesideMerge with the write as the store's first
// use: its pack, merged away before it is opened, is found merged and the
// write stands.
func TestStoragePackFirstUseWriteBesideMerge(t *testing.T) {
	ctx := context.Background()
	a := objects.BLAKE3
	dir := t.TempDir()
	all, runs := spTestRuns(t, a, 3)
	first := spOpenTestPacks(t, dir, a)
	if _, err := first.WriteAppendPack(ctx, all[0:2], objects.OID{}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.WriteAppendPack(ctx, all[2:4], runs[0].ID); err != nil {
		t.Fatal(err)
	}
	writer := spOpenTestPacks(t, dir, a)
	merger := spOpenTestPacks(t, dir, a)
	existing := spPackNames(t, first)
	hook := spMergeIn(t, merger)
	openWindowHook = func(name string) {
		if !slices.Contains(existing, name) {
			hook(name)
		}
	}
	defer func() { openWindowHook = nil }()
	name, err := writer.WritePack(ctx, all[4:6], Options{})
	openWindowHook = nil
	if err != nil {
		t.Fatalf("first-use write whose pack another process merged: %v", err)
	}
	if slices.Contains(spPackNames(t, writer), name) {
		t.Fatalf("%s is still searched after the merge removed it", name)
	}
	for _, o := range all {
		spCheckGet(t, writer, o)
	}
}
