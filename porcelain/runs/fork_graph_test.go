package runs_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestForkClosureAndRefusal(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	clk := fakeClock(time.Unix(1767225600, 0), time.Second)
	a := appendEvent(t, r, "", `{"kind":"human","note":"start"}`, clk).Event
	b := appendEvent(t, r, "", `{"kind":"model"}`, clk).Event
	c := appendEvent(t, r, "", `{"kind":"tool","causal_ids":["`+a+`"]}`, clk).Event
	_ = appendEvent(t, r, "", `{"kind":"tool"}`, clk)
	res, err := runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: c[len("event:blake3:"):][:10], Reason: "why", Now: clk})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Ref, "experiments/main-") || res.Events != 3 {
		t.Fatalf("fork: %+v", res)
	}
	fork := loadRef(t, r, res.Ref)
	if fork.ForkedFrom == nil || fork.ForkedFrom.Event.String() != c || fork.ForkedFrom.Reason != "why" {
		t.Fatalf("forked_from: %+v", fork.ForkedFrom)
	}
	got := []string{fork.Events[0].ID.String(), fork.Events[1].ID.String(), fork.Events[2].ID.String()}
	if got[0] != a || got[1] != b || got[2] != c || len(fork.Tips) != 1 || fork.Tips[0].String() != c {
		t.Fatalf("closure %v tips %v", got, fork.Tips)
	}
	_, err = runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: c, Ref: res.Ref})
	if !errors.Is(err, runs.ErrRefExists) {
		t.Fatalf("second fork onto the same ref: %v", err)
	}
}

func TestLogGraphThreeForks(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	clk := fakeClock(time.Unix(1767225600, 0), time.Minute)
	ids := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		ids[n] = appendEvent(t, r, "heads/main", `{"kind":"tool","tool":"step-`+n+`","cost":0.01}`, clk).Event
	}
	forks := []struct {
		name, at string
		steps    []string
	}{{"x", "b", []string{"x1", "x2"}}, {"y", "c", []string{"y1"}}, {"z", "b", []string{"z1"}}}
	for _, f := range forks {
		ref := "experiments/" + f.name
		if _, err := runs.Fork(ctx, r, runs.ForkOptions{Source: "heads/main", From: ids[f.at], Ref: ref, Now: clk}); err != nil {
			t.Fatal(err)
		}
		for _, s := range f.steps {
			ids[s] = appendEvent(t, r, ref, `{"kind":"model","model":"`+s+`","score":0.5}`, clk).Event
		}
	}
	res, err := runs.Log(ctx, r, runs.LogOptions{All: true, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for n, id := range ids {
		names[id] = n
	}
	var b strings.Builder
	for _, gl := range res.Graph {
		if gl.Node < 0 {
			b.WriteString(gl.Graph + "\n")
			continue
		}
		e := res.Entries[gl.Node]
		line := gl.Graph + " " + names[e.Event]
		if len(e.Refs) > 0 {
			line += " (" + strings.Join(e.Refs, ", ") + ")"
		}
		b.WriteString(line + "\n")
	}
	golden := filepath.Join("..", "..", "testdata", "golden", "log_graph_three_forks.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Fatalf("graph differs from %s:\n%s\nwant:\n%s", golden, b.String(), want)
	}
	if len(res.Entries) != 8 {
		t.Fatalf("%d events, want 8 (shared by oid)", len(res.Entries))
	}
}
