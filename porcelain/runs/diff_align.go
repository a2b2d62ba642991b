package runs

// Alignment of divergent events (tine diff).
//
// After the events two runs share (by oid) are set aside, each run has a
// sequence of divergent events in its own order. tine pairs them so a
// reader sees "the second attempt ran the same step differently" rather
// than two unrelated lists:
//
//  1. Each event gets a key: its kind and what it called (tool, or model;
//     for a recorded command the program name). The longest common
//     subsequence of the two key sequences pairs events that did the same
//     kind of thing in the same relative order ("matched").
//  2. Between two consecutive matched pairs (and before the first and after
//     the last) the leftover events of A and B are paired position by
//     position ("replaced": the step was done differently); what is left
//     when one side runs out is unpaired (only that run did it).
//
// The LCS is the classic dynamic programme with a fixed tie-break (prefer
// skipping A's element), so the alignment is a pure function of the keys.
// It costs len(a)*len(b) cells; beyond MaxAlignCells the whole sequence is
// paired position by position instead, which is linear.

// MaxAlignCells bounds the LCS table (about 16M cells, 64 MiB of int32):
// larger inputs fall back to position-by-position pairing.
const MaxAlignCells = 1 << 24

// Alignment kinds of an AlignStep.
const (
	// AlignMatched pairs two events with equal keys.
	AlignMatched = "matched"
	// AlignReplaced pairs two events with different keys that sit at the
	// same position between matched pairs.
	AlignReplaced = "replaced"
	// AlignOnlyA is an event of A with no partner in B.
	AlignOnlyA = "only_a"
	// AlignOnlyB is an event of B with no partner in A.
	AlignOnlyB = "only_b"
)

// AlignStep is one step of an alignment: indexes into the two sequences,
// -1 for the side that has no event in this step.
type AlignStep struct {
	Kind string
	A, B int
}

// Align aligns two key sequences as described above and returns the steps
// in order: every index of a and of b appears exactly once.
func Align(a, b []string) []AlignStep {
	var anchors [][2]int
	if len(a)*len(b) <= MaxAlignCells {
		anchors = lcsPairs(a, b)
	}
	var steps []AlignStep
	i, j := 0, 0
	flush := func(ei, ej int) {
		for i < ei && j < ej {
			steps = append(steps, AlignStep{Kind: AlignReplaced, A: i, B: j})
			i++
			j++
		}
		for ; i < ei; i++ {
			steps = append(steps, AlignStep{Kind: AlignOnlyA, A: i, B: -1})
		}
		for ; j < ej; j++ {
			steps = append(steps, AlignStep{Kind: AlignOnlyB, A: -1, B: j})
		}
	}
	for _, p := range anchors {
		flush(p[0], p[1])
		steps = append(steps, AlignStep{Kind: AlignMatched, A: p[0], B: p[1]})
		i, j = p[0]+1, p[1]+1
	}
	flush(len(a), len(b))
	return steps
}

// lcsPairs returns the index pairs of one longest common subsequence of a
// and b, in increasing order.
func lcsPairs(a, b []string) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	// t[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
