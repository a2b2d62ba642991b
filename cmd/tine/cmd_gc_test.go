package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVerifyPackFlippedByteExits1 packs objects with gc, flips one byte of
// the pack and requires verify-pack and fsck to exit 1 naming the damage.
func TestVerifyPackFlippedByteExits1(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := tineRun(t, "", "init", "--object-format", "blake3", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	repo := filepath.Join(dir, ".tine")
	var files []string
	for i := range 40 {
		p := filepath.Join(dir, "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
		if err := os.WriteFile(p, []byte(strings.Repeat("payload ", 50)+p), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if code, _, errs := tineRun(t, "", append([]string{"--repo", repo, "hash-object", "-w"}, files...)...); code != 0 {
		t.Fatalf("hash-object: %s", errs)
	}
	if code, out, errs := tineRun(t, "", "--repo", repo, "gc"); code != 0 || !strings.Contains(out, "packed 40 objects") {
		t.Fatalf("gc: %d %s %s", code, out, errs)
	}
	packs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs after gc: %v", packs)
	}
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	os.Chmod(packs[0], 0o644)
	if err := os.WriteFile(packs[0], b, 0o444); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tineRun(t, "", "--repo", repo, "verify-pack")
	name := strings.TrimSuffix(filepath.Base(packs[0]), ".pack")
	if code != 1 || !strings.Contains(out, "FAILED "+name) || !strings.Contains(errs, "1 pack(s) failed verification") {
		t.Fatalf("verify-pack of a flipped byte: %d\n%s\n%s", code, out, errs)
	}
	if code, out, _ := tineRun(t, "", "--repo", repo, "fsck"); code != 1 || !strings.Contains(out, "problem ") {
		t.Fatalf("fsck of a flipped byte: %d\n%s", code, out)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"now": 0, "90m": 90 * time.Minute, "12h": 12 * time.Hour, "14d": 14 * 24 * time.Hour,
		"2w": 14 * 24 * time.Hour, "2.weeks.ago": 14 * 24 * time.Hour, "3.days.ago": 72 * time.Hour,
	} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "-1h", "2.fortnights.ago", "99999999d"} {
		if _, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) accepted", bad)
		}
	}
}
