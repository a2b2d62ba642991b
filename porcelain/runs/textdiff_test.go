package runs

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnifiedDiffHunks(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	d := UnifiedDiff([]byte(old), []byte(new), TextDiffOptions{OldName: "a/out", NewName: "b/out"})
	want := `--- a/out
+++ b/out
@@ -1,7 +1,7 @@
 a
 b
 c
-d
+D
 e
 f
 g
@@ -10,3 +10,4 @@
 j
 k
 l
+m
`
	if d.Unified != want {
		t.Fatalf("unified diff:\n%s\nwant:\n%s", d.Unified, want)
	}
	if d.Added != 2 || d.Removed != 1 || d.Equal || d.Binary || d.TooLarge {
		t.Fatalf("counts %+v", d)
	}
}

func TestUnifiedDiffMergesNearbyChanges(t *testing.T) {
	d := UnifiedDiff([]byte("1\n2\n3\n4\n5\n"), []byte("1\nX\n3\n4\nY\n"), TextDiffOptions{Context: 1})
	want := "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n-5\n+Y\n"
	if d.Unified != want {
		t.Fatalf("got:\n%q\nwant:\n%q", d.Unified, want)
	}
}

func TestUnifiedDiffEdgeCases(t *testing.T) {
	if d := UnifiedDiff([]byte("same\n"), []byte("same\n"), TextDiffOptions{}); !d.Equal || d.Unified != "" {
		t.Fatalf("equal inputs: %+v", d)
	}
	d := UnifiedDiff([]byte("x"), []byte("y"), TextDiffOptions{})
	want := "--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
	if d.Unified != want {
		t.Fatalf("no final newline:\n%q\nwant\n%q", d.Unified, want)
	}
	d = UnifiedDiff(nil, []byte("new\n"), TextDiffOptions{})
	if !strings.Contains(d.Unified, "@@ -0,0 +1 @@\n+new\n") {
		t.Fatalf("from empty: %q", d.Unified)
	}
	if d := UnifiedDiff([]byte("a\x00b"), []byte("a\x00c"), TextDiffOptions{}); !d.Binary || d.Unified != "" {
		t.Fatalf("NUL byte: %+v", d)
	}
	if d := UnifiedDiff([]byte("ok\n"), []byte{0xff, 0xfe}, TextDiffOptions{}); !d.Binary {
		t.Fatalf("invalid UTF-8: %+v", d)
	}
	big := strings.Repeat("line\n", 100)
	if d := UnifiedDiff([]byte(big), []byte(big+"more\n"), TextDiffOptions{MaxBytes: 100}); !d.TooLarge || d.Unified != "" || d.NewSize != len(big)+5 {
		t.Fatalf("over the cap: %+v", d)
	}
}

// TestUnifiedDiffDeterministic diffs texts large enough that go-diff's
// default one-second timeout could matter on a slow machine; with the
// timeout off, every run gives the same bytes.
func TestUnifiedDiffDeterministic(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&a, "line %d %d\n", i, (i*7919)%1000)
		fmt.Fprintf(&b, "line %d %d\n", i, (i*7907)%1000)
	}
	first := UnifiedDiff([]byte(a.String()), []byte(b.String()), TextDiffOptions{})
	if first.Unified == "" || first.Added == 0 {
		t.Fatalf("expected a diff, got %+v", first)
	}
	for i := 0; i < 3; i++ {
		again := UnifiedDiff([]byte(a.String()), []byte(b.String()), TextDiffOptions{})
		if again.Unified != first.Unified {
			t.Fatalf("diff %d differs from the first", i)
		}
	}
	// Applying the edit script to the old text must give the new one.
	lines := diffLines(a.String(), b.String())
	var oldOut, newOut strings.Builder
	for _, l := range lines {
		if l.op != '+' {
			oldOut.WriteString(l.text)
		}
		if l.op != '-' {
			newOut.WriteString(l.text)
		}
	}
	if oldOut.String() != a.String() || newOut.String() != b.String() {
		t.Fatal("edit script does not reproduce both texts")
	}
}
