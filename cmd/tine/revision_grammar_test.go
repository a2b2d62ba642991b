package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// grammarRepo is a work directory with heads/main holding three recorded
// commands (so main~1 is a stored snapshot in its reflog) and heads/imp
// two imported events (so imp~1 is derived, not stored).
func grammarRepo(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	mustTine(t, "", "init")
	for _, s := range []string{"one", "two", "three"} {
		mustTine(t, "", "record", "--", "sh", "-c", "echo "+s)
	}
	mustTine(t, "{\"kind\":\"tool\",\"tool\":\"a\"}\n{\"kind\":\"tool\",\"tool\":\"b\"}\n", "import", "-", "--ref", "heads/imp")
}

// mustTine runs tine in-process and requires exit 0.
func mustTine(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errs := tineRun(t, stdin, args...)
	if code != 0 {
		t.Fatalf("tine %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// jsonField decodes one string field of a --json result.
func jsonField(t *testing.T, out, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	s, _ := m[field].(string)
	return s
}

// TestRevisionGrammarEveryVerb: every spelling of one run (ref, short
// name, refs/ prefix, REF@{n}, REF~N, oid, unique prefix) names the same
// run in rev-parse, cat-object, show, log, update-ref, tag, pack and diff.
func TestRevisionGrammarEveryVerb(t *testing.T) {
	grammarRepo(t)
	prev := strings.TrimSpace(mustTine(t, "", "rev-parse", "heads/main@{1}"))
	hex := prev[strings.LastIndexByte(prev, ':')+1:]
	spellings := []string{"main~1", "heads/main~1", "refs/heads/main~", "main~0~1", "main@{1}", "heads/main@{1}", prev, hex[:10], "main@{0}~1"}
	for _, rev := range spellings {
		if got := strings.TrimSpace(mustTine(t, "", "rev-parse", rev)); got != prev {
			t.Errorf("rev-parse %s = %s, want %s", rev, got, prev)
		}
		if got := strings.TrimSpace(mustTine(t, "", "cat-object", "-t", rev)); got != "run" {
			t.Errorf("cat-object -t %s = %q", rev, got)
		}
		if got := jsonField(t, mustTine(t, "", "show", rev, "--json"), "oid"); got != prev {
			t.Errorf("show %s = %s, want %s", rev, got, prev)
		}
		var lg struct {
			Runs []struct{ Run string } `json:"runs"`
		}
		if err := json.Unmarshal([]byte(mustTine(t, "", "log", rev, "--json")), &lg); err != nil || len(lg.Runs) != 1 || lg.Runs[0].Run != prev {
			t.Errorf("log %s: %+v %v", rev, lg, err)
		}
		mustTine(t, "", "update-ref", "heads/copy", rev)
		if got := strings.TrimSpace(mustTine(t, "", "rev-parse", "copy")); got != prev {
			t.Errorf("update-ref heads/copy %s set %s, want %s", rev, got, prev)
		}
		mustTine(t, "", "tag", "--force", "t", rev)
		if got := strings.TrimSpace(mustTine(t, "", "rev-parse", "tags/t")); got != prev {
			t.Errorf("tag t %s set %s", rev, got)
		}
		var pk struct {
			Roots []string `json:"roots"`
		}
		if err := json.Unmarshal([]byte(mustTine(t, "", "pack", "--output", "frame.tinepack", "--force", "--json", rev)), &pk); err != nil || len(pk.Roots) != 1 || pk.Roots[0] != prev {
			t.Errorf("pack %s: roots %v %v", rev, pk.Roots, err)
		}
		if code, _, errs := tineRun(t, "", "diff", "--exit-code", rev, prev); code != 0 {
			t.Errorf("diff --exit-code %s %s: exit %d %s", rev, prev, code, errs)
		}
	}
}

// TestRevisionGrammarDerivedRun: imp~1 has no stored run: rev-parse and
// show name the oid it would have, marked not stored; verbs that need a
// stored object refuse it in one line saying how to store it.
func TestRevisionGrammarDerivedRun(t *testing.T) {
	grammarRepo(t)
	out := mustTine(t, "", "rev-parse", "imp~1", "--json")
	oid := jsonField(t, out, "oid")
	if !strings.Contains(out, `"stored": false`) || !strings.HasPrefix(oid, "run:") {
		t.Fatalf("rev-parse imp~1: %s", out)
	}
	if got := jsonField(t, mustTine(t, "", "show", "imp~1", "--json"), "oid"); got != oid {
		t.Fatalf("show imp~1 = %s, rev-parse said %s", got, oid)
	}
	for _, args := range [][]string{{"update-ref", "heads/x", "imp~1"}, {"pack", "--output", "-", "imp~1"}, {"cat-object", "-t", "imp~1"}} {
		code, _, errs := tineRun(t, "", args...)
		if code != 1 {
			t.Fatalf("tine %v: exit %d", args, code)
		}
		assertOneErrorLine(t, errs, "tine "+args[0]+": ")
		if !strings.Contains(errs, "no stored run object holds") || !strings.Contains(errs, "tine fork heads/imp --from event:") {
			t.Fatalf("tine %v: %s", args, errs)
		}
	}
}

// TestRefNameGrammar: reflog and update-ref take a short name for an
// existing ref, reflog REF@{n} starts at row n, and a revision where a ref
// is wanted is refused.
func TestRefNameGrammar(t *testing.T) {
	grammarRepo(t)
	count := func(args ...string) int {
		var res struct {
			Ref     string `json:"ref"`
			Entries []struct {
				Index int `json:"index"`
			} `json:"entries"`
		}
		if err := json.Unmarshal([]byte(mustTine(t, "", append(args, "--json")...)), &res); err != nil || res.Ref != "heads/main" {
			t.Fatalf("%v: %+v %v", args, res, err)
		}
		if len(res.Entries) > 0 && res.Entries[0].Index != 3-len(res.Entries) {
			t.Fatalf("%v: first row index %d", args, res.Entries[0].Index)
		}
		return len(res.Entries)
	}
	if n := count("reflog", "main"); n != 3 {
		t.Fatalf("reflog main: %d rows", n)
	}
	if n := count("reflog", "refs/heads/main"); n != 3 {
		t.Fatalf("reflog refs/heads/main: %d rows", n)
	}
	if n := count("reflog", "main@{1}"); n != 2 {
		t.Fatalf("reflog main@{1}: %d rows", n)
	}
	code, _, errs := tineRun(t, "", "reflog", "main~1")
	if code != 1 || !strings.Contains(errs, "name past values of a ref, not a ref") {
		t.Fatalf("reflog main~1: %d %s", code, errs)
	}
	code, _, errs = tineRun(t, "", "reflog", "nope")
	if code != 1 || !strings.Contains(errs, `no ref is named "nope" (tried heads/nope, tags/nope,`) {
		t.Fatalf("reflog nope: %d %s", code, errs)
	}
	code, _, errs = tineRun(t, "", "reflog", "foo/bar")
	if code != 1 || !strings.Contains(errs, "namespace must be one of") {
		t.Fatalf("reflog foo/bar: %d %s", code, errs)
	}
	mustTine(t, "", "update-ref", "imp", "main")
	if a, b := mustTine(t, "", "rev-parse", "heads/imp"), mustTine(t, "", "rev-parse", "heads/main"); a != b {
		t.Fatalf("update-ref imp main: %s != %s", a, b)
	}
}
