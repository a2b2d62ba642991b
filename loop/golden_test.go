package loop

import "testing"

// goldenCase is one trace from loopforge.md §2.3, run through the engine.
type goldenCase struct {
	name string
	cfg  Config
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"t1-numeric-42-max20.txt", Config{Goal: "Find x near 42.0", Initial: obj("x", 0.0),
			Step: Numeric(42, 3.5, 0.01), Policy: Policy{MaxSteps: 20, MaxBranches: 4, Width: 2}}},
		{"t1-numeric-42-max30.txt", Config{Goal: "Find x close to 42", Initial: obj("x", 0.0),
			Step: Numeric(42, 3.5, 0.01), Policy: Policy{MaxSteps: 30, MaxBranches: 4, Width: 2}}},
		{"t2-numeric-10.txt", Config{Goal: "Find x near 10.0", Initial: obj("x", 0.0),
			Step: Numeric(10, 2.5, 0.01), Policy: Policy{MaxSteps: 30, MaxBranches: 5, Width: 2}}},
		{"t3-text-status.txt", Config{Goal: "Rewrite toward: clear and concise status update", Initial: obj("text", "start draft"),
			Step: Text("clear and concise status update", "clear", 40), Policy: Policy{MaxSteps: 25, MaxBranches: 3, Width: 2}}},
		{"t4-text-empty-start.txt", Config{Goal: "Rewrite toward: make it clear", Initial: obj("text", ""),
			Step: Text("make it clear", "clear", 40), Policy: Policy{MaxSteps: 25, MaxBranches: 3, Width: 2}}},
	}
}

// TestGoldenTraces compares each whole trace with its golden file; the
// digest's own facts are asserted separately below, so a golden file
// rewritten with -update cannot hide a change in those.
func TestGoldenTraces(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			_, tr := runTraced(t, c.cfg)
			checkGolden(t, c.name, tr.b.String())
		})
	}
}
