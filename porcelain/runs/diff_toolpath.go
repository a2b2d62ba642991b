package runs

// The tool paths of a diff as a reader is shown them. Two runs forked from
// one another call the same steps up to the fork, so printing both paths
// whole repeats the shared part twice and grows with the runs (two lines
// of 170 KB for a fork of a 30,000-event run): the view counts the steps
// both paths start with and keeps each path's steps after them, which is
// what the divergent events cost anyway.

// ShortSharedSteps is the most shared steps ToolPathView.Head holds: tool
// paths sharing no more than that are short enough to show whole.
const ShortSharedSteps = 20

// ToolPathView is the two tool paths of a diff seen from where they part.
type ToolPathView struct {
	// Shared is the number of leading steps both paths hold (the longest
	// common prefix of the two step lists, so it may run past the common
	// ancestor when the divergent events call the same steps).
	Shared int
	// Head holds those steps when Shared is at most ShortSharedSteps, and
	// is nil otherwise: then Head+A and Head+B are the whole paths.
	Head []string
	// A and B are each path's steps after the shared ones.
	A, B []string
}

// Changed reports tool paths that differ: past their shared steps, at
// least one of them goes on.
func (v ToolPathView) Changed() bool { return len(v.A) > 0 || len(v.B) > 0 }

// newToolPathView builds the view of two tool paths that agree on their
// first offset steps and go on with a and b. head returns those offset
// steps; it is called only when the view keeps them (nil is fine for an
// offset of 0).
func newToolPathView(a, b []string, offset int, head func() ([]string, error)) (ToolPathView, error) {
	m := 0
	for m < len(a) && m < len(b) && a[m] == b[m] {
		m++
	}
	v := ToolPathView{Shared: offset + m, A: a[m:], B: b[m:]}
	if v.Shared > ShortSharedSteps {
		return v, nil
	}
	v.Head = make([]string, 0, v.Shared)
	if offset > 0 {
		h, err := head()
		if err != nil {
			return ToolPathView{}, err
		}
		v.Head = append(v.Head, h...)
	}
	v.Head = append(v.Head, a[:m]...)
	return v, nil
}
