package plumbing

import (
	"fmt"
	"sort"

	"github.com/tinehq/tine/objects"
)

// eventEdges returns the parent and causal links of a decoded event that
// name stored events. Malformed fields were already reported by the link
// rules, so they are skipped here.
func (f *fsck) eventEdges(o *objects.Object) []objects.OID {
	var out []objects.OID
	for _, field := range []string{"parent_ids", "causal_ids"} {
		v, ok := o.Value.Get(field)
		if !ok || v.Kind != objects.KindArray {
			continue
		}
		for _, el := range v.Array {
			if el.Kind != objects.KindString {
				continue
			}
			id, err := objects.ParseOIDFor(f.r.algo, el.Str)
			if err != nil || id.Type != objects.TypeEvent {
				continue
			}
			if e, ok := f.objs[id]; ok && e.obj != nil {
				out = append(out, id)
			}
		}
	}
	return out
}

// checkEventDAG reports every cycle of the event graph (SPEC §2.9), once
// per cycle, naming the event where the search re-entered it. The search
// is iterative (no recursion depth limit) and linear in events plus edges.
// With content addressing a cycle needs a hash collision, so this guards
// against forged or corrupted stores rather than tine's own writers.
func (f *fsck) checkEventDAG() error {
	var events []objects.OID
	for id, e := range f.objs {
		if id.Type == objects.TypeEvent && e.obj != nil {
			events = append(events, id)
		}
	}
	sort.Slice(events, func(i, j int) bool { return events[i].Compare(events[j]) < 0 })
	const (
		white = iota
		grey
		black
	)
	color := make(map[objects.OID]uint8, len(events))
	type frame struct {
		id    objects.OID
		edges []objects.OID
		next  int
	}
	for _, root := range events {
		if color[root] != white {
			continue
		}
		stack := []frame{{id: root, edges: f.eventEdges(f.objs[root].obj)}}
		color[root] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.edges) {
				color[top.id] = black
				stack = stack[:len(stack)-1]
				continue
			}
			to := top.edges[top.next]
			top.next++
			switch color[to] {
			case grey:
				f.problem(Problem{Code: ProblemEventCycle, Object: to.String(),
					Message: fmt.Sprintf("event %s is its own ancestor (cycle found from %s)", to, root)})
			case white:
				color[to] = grey
				stack = append(stack, frame{id: to, edges: f.eventEdges(f.objs[to].obj)})
			}
		}
		if err := f.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
