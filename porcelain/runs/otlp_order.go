package runs

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"
)

// otlpKey names a span across traces: trace id and span id, hex.
func otlpKey(trace, span string) string { return trace + "/" + span }

// otlpOrder checks the spans and orders them for the run: a span is
// refused when it appears twice (the same trace and span id), the spans are
// refused when parent links form a cycle, and otherwise every span comes
// after its parent, spans free to go in either order going by start time
// (then file order). A parent that is not in the export is unresolved: the
// span is kept, as a root of its trace, and reported.
func otlpOrder(spans []*otlpSpan) ([]*otlpSpan, map[string]*otlpSpan, error) {
	byKey := make(map[string]*otlpSpan, len(spans))
	for _, sp := range spans {
		k := otlpKey(sp.trace, sp.id)
		if prev, dup := byKey[k]; dup {
			return nil, nil, fmt.Errorf("%w: span %s of trace %s appears twice (spans %d and %d)", ErrBadOTLP, sp.id, sp.trace, prev.index, sp.index)
		}
		byKey[k] = sp
	}
	children := map[string][]*otlpSpan{}
	q := &spanQueue{}
	for _, sp := range spans {
		if p, ok := otlpParent(sp, byKey); ok {
			children[otlpKey(p.trace, p.id)] = append(children[otlpKey(p.trace, p.id)], sp)
			continue
		}
		heap.Push(q, sp)
	}
	out := make([]*otlpSpan, 0, len(spans))
	for q.Len() > 0 {
		sp := heap.Pop(q).(*otlpSpan)
		out = append(out, sp)
		for _, c := range children[otlpKey(sp.trace, sp.id)] {
			heap.Push(q, c)
		}
	}
	if len(out) < len(spans) {
		return nil, nil, otlpCycle(spans, out)
	}
	return out, byKey, nil
}

// otlpParent returns the span's parent when the export holds it.
func otlpParent(sp *otlpSpan, byKey map[string]*otlpSpan) (*otlpSpan, bool) {
	if sp.parent == "" {
		return nil, false
	}
	p, ok := byKey[otlpKey(sp.trace, sp.parent)]
	return p, ok
}

// otlpCycle names the spans no order could place: each lies on, or
// descends from, a cycle of parent links.
func otlpCycle(spans, placed []*otlpSpan) error {
	done := make(map[*otlpSpan]bool, len(placed))
	for _, sp := range placed {
		done[sp] = true
	}
	var ids []string
	for _, sp := range spans {
		if !done[sp] {
			ids = append(ids, sp.id)
		}
	}
	sort.Strings(ids)
	n := len(ids)
	if len(ids) > 5 {
		ids = append(ids[:5], "...")
	}
	return fmt.Errorf("%w: parentSpanId links form a cycle through %d span(s): %s", ErrBadOTLP, n, strings.Join(ids, ", "))
}

// spanQueue orders spans ready to be placed by start time, then file order.
type spanQueue []*otlpSpan

// Len implements heap.Interface.
func (q spanQueue) Len() int { return len(q) }

// Less implements heap.Interface: earlier start, then earlier in the file.
func (q spanQueue) Less(i, j int) bool {
	if q[i].start != q[j].start {
		return q[i].start < q[j].start
	}
	return q[i].index < q[j].index
}

// Swap implements heap.Interface.
func (q spanQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

// Push implements heap.Interface.
func (q *spanQueue) Push(x any) { *q = append(*q, x.(*otlpSpan)) }

// Pop implements heap.Interface.
func (q *spanQueue) Pop() any {
	old := *q
	sp := old[len(old)-1]
	*q = old[:len(old)-1]
	return sp
}
