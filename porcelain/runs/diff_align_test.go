package runs

import (
	"fmt"
	"strings"
	"testing"
)

// render spells an alignment compactly: "=a0b0" matched, "~a1b1"
// replaced, "-a2" only in A, "+b3" only in B.
func renderAlign(steps []AlignStep) string {
	var parts []string
	for _, s := range steps {
		switch s.Kind {
		case AlignMatched:
			parts = append(parts, fmt.Sprintf("=a%db%d", s.A, s.B))
		case AlignReplaced:
			parts = append(parts, fmt.Sprintf("~a%db%d", s.A, s.B))
		case AlignOnlyA:
			parts = append(parts, fmt.Sprintf("-a%d", s.A))
		case AlignOnlyB:
			parts = append(parts, fmt.Sprintf("+b%d", s.B))
		}
	}
	return strings.Join(parts, " ")
}

func TestAlign(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
		want string
	}{
		{"both empty", nil, nil, ""},
		{"only A", []string{"x", "y"}, nil, "-a0 -a1"},
		{"only B", nil, []string{"x"}, "+b0"},
		{"same keys pair in order", []string{"read", "edit", "test"}, []string{"read", "edit", "test"}, "=a0b0 =a1b1 =a2b2"},
		{"B inserts a step", []string{"read", "test"}, []string{"read", "edit", "test"}, "=a0b0 +b1 =a1b2"},
		{"A has an extra step", []string{"read", "lint", "test"}, []string{"read", "test"}, "=a0b0 -a1 =a2b1"},
		{"different step at the same place", []string{"read", "sed", "test"}, []string{"read", "patch", "test"}, "=a0b0 ~a1b1 =a2b2"},
		{"nothing in common pairs by position", []string{"x", "y", "z"}, []string{"p", "q"}, "~a0b0 ~a1b1 -a2"},
		{"gap longer on B", []string{"read", "x", "test"}, []string{"read", "p", "q", "test"}, "=a0b0 ~a1b1 +b2 =a2b3"},
		{"tie-break is fixed", []string{"x", "y"}, []string{"y", "x"}, "-a0 =a1b0 +b1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := Align(tc.a, tc.b)
			if got := renderAlign(steps); got != tc.want {
				t.Fatalf("Align(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
			}
			checkCovers(t, steps, len(tc.a), len(tc.b))
		})
	}
}

// checkCovers requires every index of both sequences exactly once, in
// increasing order on each side.
func checkCovers(t *testing.T, steps []AlignStep, n, m int) {
	t.Helper()
	nextA, nextB := 0, 0
	for _, s := range steps {
		if s.A >= 0 {
			if s.A != nextA {
				t.Fatalf("A index %d out of order (want %d) in %v", s.A, nextA, steps)
			}
			nextA++
		}
		if s.B >= 0 {
			if s.B != nextB {
				t.Fatalf("B index %d out of order (want %d) in %v", s.B, nextB, steps)
			}
			nextB++
		}
	}
	if nextA != n || nextB != m {
		t.Fatalf("covered %d of %d A and %d of %d B", nextA, n, nextB, m)
	}
}

func TestAlignLargeFallsBackToPositions(t *testing.T) {
	// Past MaxAlignCells the LCS table is not built: pairs go by position,
	// and matched keys are still reported as replaced pairs.
	n := 1<<12 + 1
	a := make([]string, n)
	b := make([]string, n)
	for i := range a {
		a[i], b[i] = "k", "k"
	}
	steps := Align(a, b)
	checkCovers(t, steps, n, n)
	if steps[0].Kind != AlignReplaced {
		t.Fatalf("first step %+v, want a positional (replaced) pair", steps[0])
	}
	small := Align(a[:10], b[:10])
	if small[0].Kind != AlignMatched {
		t.Fatalf("small input: first step %+v, want matched", small[0])
	}
}
