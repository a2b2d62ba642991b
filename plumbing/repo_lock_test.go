package plumbing

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// lockChildEnv names the repository TestLockWriterChild writes to.
const lockChildEnv = "TINE_PLUMBING_LOCK_CHILD_REPO"

// TestLockWriterChild is the writer TestGCPruneWaitsForWriter runs: it
// stores a chain through the repository's store (taking the writers'
// lock), prints "written", waits for a line on stdin, then points
// heads/late at the chain's run and exits.
func TestLockWriterChild(t *testing.T) {
	dir := os.Getenv(lockChildEnv)
	if dir == "" {
		t.Skip("child mode of TestGCPruneWaitsForWriter only")
	}
	r, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lock child:", err)
		os.Exit(3)
	}
	run, all := chainObjects(t, r.Algo(), "late", 3)
	if err := objects.PutAll(context.Background(), r.Objects(), all); err != nil {
		fmt.Fprintln(os.Stderr, "lock child:", err)
		os.Exit(3)
	}
	fmt.Println("written")
	bufio.NewReader(os.Stdin).ReadString('\n')
	setRef(t, r, "heads/late", run.ID)
	r.Close()
	fmt.Println("referenced")
	os.Exit(0)
}

// TestGCPruneWaitsForWriter: a writer process has stored a chain and not
// yet moved the ref to it; gc --prune=now must wait (and say so) instead
// of deleting the chain, and prune only once the writer is done, keeping
// the chain it then references. Before the writers' lock, gc deleted it.
func TestGCPruneWaitsForWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	if os.Getenv(lockChildEnv) != "" || os.Getenv(gcCrashEnv) != "" || os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	// blake3 writes through the combined store, a sha256 repository
	// without storage packs through the loose-write store: both must lock.
	for _, algo := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		t.Run(string(algo), func(t *testing.T) { gcPruneWaitsForWriter(t, algo) })
	}
}

// gcPruneWaitsForWriter is TestGCPruneWaitsForWriter in a repository of
// algo.
func gcPruneWaitsForWriter(t *testing.T, algo objects.Algo) {
	r := newRepo(t, algo)
	kept := storeChain(t, r, "heads/a", false, 2)
	child := startLockWriter(t, r.Root())
	var notices []string
	released := false
	release := func() {
		if !released {
			released = true
			child.proceed() // the writer may finish now
		}
	}
	gr, err := OpenWith(r.Root(), OpenOptions{Notice: func(msg string) {
		notices = append(notices, msg)
		if strings.Contains(msg, "writers") {
			release()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Close()
	res, err := GC(context.Background(), gr, GCOptions{Prune: true})
	release() // a gc that did not wait must not leave the writer hanging
	if err != nil {
		t.Fatalf("gc: %v", err)
	}
	child.finish(t)
	late, err := gr.Refs().Resolve(context.Background(), "heads/late")
	if len(notices) == 0 || res.Pruned != 0 || err != nil {
		t.Fatalf("gc did not wait for the writer: notices %q, pruned %d; the writer's run: %v", notices, res.Pruned, err)
	}
	mustReadAll(t, r.Root(), append(kept, late.ID))
	mustFsckClean(t, gr)
}

// TestSecondGCWaitsForFirst: while one gc holds the gc lock, another
// waits, saying so, and runs once the first is done.
func TestSecondGCWaitsForFirst(t *testing.T) {
	r := packsOn(t, newRepo(t, objects.SHA256))
	storeChain(t, r, "heads/a", false, 3)
	release, err := r.lockGC(context.Background()) // the first gc
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	second, err := OpenWith(r.Root(), OpenOptions{Notice: func(msg string) {
		notices = append(notices, msg)
		release()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	res, err := GC(context.Background(), second, GCOptions{})
	if err != nil || res.Objects != 7 {
		t.Fatalf("second gc: %+v, %v", res, err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "another tine gc") {
		t.Fatalf("notices %q", notices)
	}
}

// lockWriter is a TestLockWriterChild process that has written its
// objects under the writers' lock and waits to be told to go on.
type lockWriter struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

// startLockWriter starts TestLockWriterChild on the repository at root
// and returns once it has written (it then holds the writers' lock); the
// process is killed when the test ends if it is still running.
func startLockWriter(t *testing.T, root string) *lockWriter {
	t.Helper()
	w := &lockWriter{cmd: exec.Command(os.Args[0], "-test.run=^TestLockWriterChild$", "-test.count=1"), stderr: &strings.Builder{}}
	w.cmd.Env = append(os.Environ(), lockChildEnv+"="+root)
	w.cmd.Stderr = w.stderr
	in, err := w.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.cmd.Process.Kill() })
	w.in, w.out = in, bufio.NewReader(outPipe)
	if line, _ := w.out.ReadString('\n'); strings.TrimSpace(line) != "written" {
		t.Fatalf("child: %q\n%s", line, w.stderr.String())
	}
	return w
}

// proceed lets the writer reference what it wrote and exit.
func (w *lockWriter) proceed() { io.WriteString(w.in, "go\n") }

// finish waits for the writer to reference its objects and exit cleanly.
func (w *lockWriter) finish(t *testing.T) {
	t.Helper()
	if line, _ := w.out.ReadString('\n'); strings.TrimSpace(line) != "referenced" {
		t.Fatalf("child: %q\n%s", line, w.stderr.String())
	}
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, w.stderr.String())
	}
}
