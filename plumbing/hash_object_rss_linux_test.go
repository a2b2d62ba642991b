package plumbing

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// rssChildEnv prefixes the variables (_REPO, _FILE) that select the
// writer process of TestHashObjectLargeFilePeakRSS.
const rssChildEnv = "TINE_TEST_HASH_RSS"

// TestHashObjectLargeFilePeakRSSChild stores one large file, as
// `tine hash-object -w FILE` does, in its own process.
func TestHashObjectLargeFilePeakRSSChild(t *testing.T) {
	repo, file := os.Getenv(rssChildEnv+"_REPO"), os.Getenv(rssChildEnv+"_FILE")
	if repo == "" {
		t.Skip("runs only as the child process of TestHashObjectLargeFilePeakRSS")
	}
	r, err := Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := HashObject(context.Background(), r, HashObjectOptions{Write: true, Paths: []string{file}}); err != nil {
		t.Fatal(err)
	}
	// The process's own high-water mark: getrusage's maxrss, seen by the
	// parent, would also count the parent's memory the child shared
	// before exec.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Print(line)
		}
	}
}

// TestHashObjectLargeFilePeakRSS: storing a 256 MiB file peaks under the
// 64 MiB resident-memory target, as the kernel counts it (VmHWM) for a
// process of its own; the aligned blocks the writer reads into are
// mapped outside the Go heap, so an allocation count would not see them.
func TestHashObjectLargeFilePeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and stores a 256 MiB file")
	}
	if os.Getenv(rssChildEnv+"_REPO") != "" {
		t.Skip("already the child")
	}
	r := newRepo(t, objects.BLAKE3)
	file := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	rng := rand.NewChaCha8([32]byte{'r', 's', 's'})
	for range 256 {
		rng.Read(buf)
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHashObjectLargeFilePeakRSSChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), rssChildEnv+"_REPO="+r.Root(), rssChildEnv+"_FILE="+file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	var kib int
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kib, _ = strconv.Atoi(f[1])
		}
	}
	if kib == 0 {
		t.Fatalf("the child reported no peak RSS:\n%s", out.String())
	}
	t.Logf("peak RSS storing 256 MiB: %d KiB", kib)
	if kib >= 64<<10 {
		t.Fatalf("peak RSS %d KiB storing a 256 MiB file; want under 64 MiB", kib)
	}
}
