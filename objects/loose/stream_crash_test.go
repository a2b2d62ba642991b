package loose_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// streamCrashEnv selects the writer process of TestLooseStreamCrash.
const streamCrashEnv = "TINE_TEST_LOOSE_STREAM_CRASH_DIR"

// streamCrashSize is the blob TestLooseStreamCrash streams: several 4 MiB
// blocks, so the writer is killed with blocks on disk and more in flight.
const streamCrashSize = 24 << 20

// streamCrashBody is the deterministic body of that blob.
func streamCrashBody() []byte {
	b := make([]byte, streamCrashSize)
	rand.NewChaCha8([32]byte{'c', 'r', 'a', 's', 'h'}).Read(b)
	return b
}

// stallingReader yields the first half of its body, then creates the
// marker file and blocks, so the parent kills the writer mid-stream
// without guessing at timing.
type stallingReader struct {
	body   []byte
	off    int
	marker string
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if r.off >= len(r.body)/2 {
		if err := os.WriteFile(r.marker, nil, 0o644); err != nil {
			return 0, err
		}
		time.Sleep(2 * time.Minute) // killed long before
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, r.body[r.off:len(r.body)/2])
	r.off += n
	return n, nil
}

// TestLooseStreamCrashChild is the writer of TestLooseStreamCrash.
func TestLooseStreamCrashChild(t *testing.T) {
	dir := os.Getenv(streamCrashEnv)
	if dir == "" {
		t.Skip("runs only as the child process of TestLooseStreamCrash")
	}
	s, err := loose.Open(filepath.Join(dir, "objects"), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.PutBlobFrom(t.Context(), &stallingReader{body: streamCrashBody(), marker: filepath.Join(dir, "stalled")})
	t.Fatalf("the stream ended (%v); it should have been killed", err)
}

// TestLooseStreamCrash kills a process in the middle of streaming a large
// blob (blocks already written with direct I/O, more in flight): no
// object appears, only a temporary file, and streaming the same bytes
// again stores the blob under the oid of its whole body.
func TestLooseStreamCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills a writer process")
	}
	if os.Getenv(streamCrashEnv) != "" {
		t.Skip("already the child")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLooseStreamCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), streamCrashEnv+"="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	marker := filepath.Join(dir, "stalled")
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("writer ended before stalling (%v):\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("writer never reached the middle of the stream")
		}
	}
	// The half read (12 MiB) fills three blocks, which the writer stages
	// put on disk while the reader stalls: wait for two of them, so the
	// kill comes with blocks written and a stream unfinished.
	temp := filepath.Join(dir, "objects", "blob", ".tmp-*")
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, _ := filepath.Glob(temp); len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() >= 8<<20 {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the writer never wrote two blocks of the stream")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	s, err := loose.Open(filepath.Join(dir, "objects"), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	if n := verifyStore(t, s); n != 0 {
		t.Fatalf("%d objects after a writer died mid-stream, want none", n)
	}
	temps, err := filepath.Glob(filepath.Join(s.Dir(), "blob", ".tmp-*"))
	if err != nil || len(temps) != 1 {
		t.Fatalf("temporary files %v (%v); want the killed writer's one", temps, err)
	}
	body := streamCrashBody()
	id, err := s.PutBlobFrom(t.Context(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if want := objects.NewBlob(objects.BLAKE3, body).ID; id != want {
		t.Fatalf("re-streamed blob %s, want %s", id, want)
	}
	if n := verifyStore(t, s); n != 1 {
		t.Fatalf("%d objects after re-streaming, want 1", n)
	}
}
