// Command rawb3 is the benchmark harness's raw BLAKE3 baseline: it reads a
// file through one reused 256 KiB buffer, hashes it with zeebo/blake3 (the
// hash tine uses) and prints one line:
//
//	<bytes> <seconds> <MiB/s> <hex digest>
//
// Nothing is stored, so the figure is the ceiling for `tine hash-object -w`
// of the same file.
package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zeebo/blake3"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rawb3 FILE")
		os.Exit(2)
	}
	n, d, sum, err := hashFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawb3:", err)
		os.Exit(1)
	}
	fmt.Printf("%d %.6f %.1f %s\n", n, d.Seconds(), float64(n)/(1<<20)/d.Seconds(), hex.EncodeToString(sum))
}

// hashFile hashes the file at path and returns its size, the time taken
// (open to digest) and the digest.
func hashFile(path string) (int64, time.Duration, []byte, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, nil, err
	}
	defer f.Close()
	h := blake3.New()
	n, err := io.CopyBuffer(h, f, make([]byte, 256<<10))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read %s: %w", path, err)
	}
	sum := h.Sum(nil)
	return n, time.Since(start), sum, nil
}
