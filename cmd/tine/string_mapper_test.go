package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsKeepTheirBytes: words that are not valid UTF-8 reach the
// verb as given (kong's own string mapper turned each such byte into
// U+FFFD): init creates the directory named, hash-object reads the file
// named, and --repo finds that repository.
func TestArgumentsKeepTheirBytes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "r\xff")
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".tine")); err != nil {
		t.Fatalf("init did not create the directory it was given: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "r\uFFFD")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("init created a directory with U+FFFD for the byte 0xff: %v", err)
	}
	file := filepath.Join(base, "f\xff")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := tineRun(t, "", "--repo", dir, "hash-object", "-w", file)
	if code != 0 || !strings.HasPrefix(out, "blob:") {
		t.Fatalf("hash-object of %q: exit %d, %q, %q", file, code, out, errs)
	}
}

// TestRecordRefusesWordsThatAreNotText: a command word that is not valid
// UTF-8 cannot be held by the event's JSON, so record refuses the command
// before running it, rather than record (and later replay) another one.
func TestRecordRefusesWordsThatAreNotText(t *testing.T) {
	t.Setenv("TINE_CAPTURE", "off")
	dir := t.TempDir()
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	marker := filepath.Join(dir, "ran")
	code, _, errs := tineRun(t, "", "--repo", dir, "record", "--ref", "heads/main", "--", "sh", "-c", `touch "$1"`, "sh", marker, "\xff")
	if code != 1 || !strings.Contains(errs, `word 6 of the command, "\xff"`) || !strings.Contains(errs, "nothing was run") {
		t.Fatalf("exit %d, %q", code, errs)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran: %v", err)
	}
}
