package runs

import (
	"container/heap"
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// logNode is what log --all keeps of one event of the union: its entry
// (what is printed), its unique parents and time for the order. The event
// object itself is dropped once summarised, so memory grows with the
// events shown, not with the runs that share them.
type logNode struct {
	entry   LogEntry
	id      objects.OID
	parents []objects.OID
	time    float64
	hasTime bool
	// seq numbers the union's events in the order first met (runs in
	// ref order, each run's events in its order): what orders events
	// that have no time.
	seq int
}

// logAll lists the events of every run a heads/, experiments/,
// promotions/, tags/ or remotes/ ref points at as one DAG (see Log), the
// newest limit of them (all when limit is 0). Runs are read one at a time,
// in ref order, and each event of the union is read once, when the first
// run listing it is.
func logAll(ctx context.Context, g objects.Getter, rl RefLister, limit int) (*LogResult, []GraphNode, error) {
	return logUnion(ctx, g, func(fn func(name string, run *Run) error) error {
		return ListRuns(ctx, rl, g, "", func(name string, run *Run) error {
			if refs.NamespaceOf(name) == refs.NamespaceAnnotations {
				return nil
			}
			return fn(name, run)
		})
	}, limit)
}

// logUnion lists the events of the runs each hands to its callback (a ref
// name, "" for a run no ref names now, and the run) as one DAG, the newest
// limit of them (all when limit is 0): the walk behind log --all and
// LogRevs.
func logUnion(ctx context.Context, g objects.Getter, each func(fn func(name string, run *Run) error) error, limit int) (*LogResult, []GraphNode, error) {
	res := &LogResult{Runs: []LogRun{}, Entries: []LogEntry{}}
	deco := map[objects.OID][]string{}
	byID := map[objects.OID]*logNode{}
	var union []*logNode
	err := each(func(name string, run *Run) error {
		ids := run.EventIDs()
		// Status is cloned so the entry does not keep the run's body.
		res.Runs = append(res.Runs, LogRun{Ref: name, Run: run.ID.String(), Status: strings.Clone(run.Status), Events: len(ids)})
		if name != "" {
			for _, t := range run.Tips {
				deco[t] = append(deco[t], name)
			}
		}
		for _, id := range ids {
			if _, ok := byID[id]; ok {
				continue
			}
			e, err := loadEvent(ctx, g, run.ID, id)
			if err != nil {
				if name == "" {
					return fmt.Errorf("run %s: %w", run.ID, err)
				}
				return fmt.Errorf("ref %s: %w", name, err)
			}
			n := &logNode{entry: detached(logEntry(e, nil)), id: id, parents: uniqueOIDs(e.Parents), time: e.TimeUnix, hasTime: e.HasTime, seq: len(union)}
			byID[id] = n
			union = append(union, n)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	order := mergedOrder(union, byID)
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	nodes := make([]GraphNode, len(order))
	for i, n := range order {
		n.entry.Refs = deco[n.id]
		res.Entries = append(res.Entries, n.entry)
		nodes[i] = GraphNode{ID: n.id, Parents: n.parents}
	}
	return res, nodes, nil
}

// detached copies the strings of an entry that may share memory with the
// event's parsed body (the JSON parser slices one string per body), so that
// keeping the entry does not keep the body.
func detached(le LogEntry) LogEntry {
	le.Kind, le.Model, le.Tool = strings.Clone(le.Kind), strings.Clone(le.Model), strings.Clone(le.Tool)
	le.Label, le.Error, le.Command = strings.Clone(le.Label), strings.Clone(le.Error), strings.Clone(le.Command)
	return le
}

// mergedOrder returns the union's events children before parents; among
// events whose children are all placed, the newest time_unix comes first,
// then the smallest oid (a strict total order, so the result does not
// depend on the input order). Events without time_unix come after those
// with the same time (0), the last met first: in a run's order a child
// follows its parents, so a history imported without times is drawn
// branch by branch, as recorded, not interleaved by oid.
func mergedOrder(union []*logNode, byID map[objects.OID]*logNode) []*logNode {
	children := make(map[objects.OID]int, len(union))
	for _, n := range union {
		for _, p := range n.parents {
			if _, ok := byID[p]; ok {
				children[p]++
			}
		}
	}
	ready := &readyHeap{}
	for _, n := range union {
		if children[n.id] == 0 {
			*ready = append(*ready, n)
		}
	}
	heap.Init(ready)
	out := make([]*logNode, 0, len(union))
	for ready.Len() > 0 {
		n := heap.Pop(ready).(*logNode)
		out = append(out, n)
		for _, p := range n.parents {
			if pn, ok := byID[p]; ok {
				children[p]--
				if children[p] == 0 {
					heap.Push(ready, pn)
				}
			}
		}
	}
	return out
}

// readyHeap is a min-heap of events by newerFirst.
type readyHeap []*logNode

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return newerFirst(h[i], h[j]) }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(*logNode)) }
func (h *readyHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}

// newerFirst orders by time_unix descending, then oid ascending; events
// without time after those with time 0, by seq descending.
func newerFirst(a, b *logNode) bool {
	if a.time != b.time {
		return a.time > b.time
	}
	if a.hasTime != b.hasTime {
		return a.hasTime
	}
	if !a.hasTime {
		return a.seq > b.seq
	}
	return a.id.Compare(b.id) < 0
}
