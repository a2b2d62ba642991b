package view_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/tinehq/tine/porcelain/view"
)

// TestDOTRendersWithGraphviz feeds the fixture's DOT, hostile labels
// included, to Graphviz itself (skipped when dot is not installed): it
// parses, draws every box, and the hostile text comes out as SVG text.
func TestDOTRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz (dot) is not installed: apt-get install graphviz to run this test")
	}
	g, err := view.BuildGraph(t.Context(), fixture(t), view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(view.DOT(g))
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("dot: %v\n%s", err, stderr.String())
	}
	svg := out.String()
	if n := strings.Count(svg, `class="node"`); n != len(g.Events)+len(g.Runs) {
		t.Fatalf("%d boxes drawn, want %d", n, len(g.Events)+len(g.Runs))
	}
	if strings.Contains(svg, "<script>") || !strings.Contains(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(svg, `\N &amp; #quot;`) {
		t.Fatalf("the hostile label is not drawn as text:\n%s", svg)
	}
}
