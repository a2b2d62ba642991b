// Command gendata writes the benchmark harness's deterministic data sets:
//
//	gendata json DIR N     N distinct ~1 KiB JSON event files DIR/eNNNNNNN.json
//	gendata large FILE MB  MB MiB of incompressible pseudo-random bytes
//	gendata history DIR N M  a run of N events and a fork of M more, as
//	                       JSONL for tine import and fast-import streams
//	                       for git (see writeHistory)
//	gendata blobs LIST OUT a git fast-import stream of one blob per file
//	                       named in LIST (one path a line), in order
//
// A fixed seed makes every run (and every machine) produce the same bytes,
// so git and tine always store identical inputs.
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// seed fixes the data set; change it and every figure's input changes.
var seed = [32]byte{'t', 'i', 'n', 'e', '-', 'b', 'e', 'n', 'c', 'h'}

// words is the vocabulary of the generated text: a small one keeps the
// JSON about as compressible as real tool output.
var words = strings.Fields(`the a run event tool call output error retry model token cost step
loop agent plan patch test build pass fail file line diff commit read write search result score
metric value budget branch fork merge attest sign verify index pack object blob hash chain`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

// run dispatches the subcommand.
func run(args []string) error {
	if len(args) == 4 && args[0] == "history" {
		n, err1 := strconv.Atoi(args[2])
		m, err2 := strconv.Atoi(args[3])
		if err1 != nil || err2 != nil || n < 1 || m < 1 {
			return fmt.Errorf("bad counts %q %q", args[2], args[3])
		}
		return writeHistory(args[1], n, m)
	}
	if len(args) == 3 && args[0] == "blobs" {
		return writeBlobStream(args[1], args[2])
	}
	if len(args) != 3 {
		return fmt.Errorf("usage: gendata json DIR N | gendata large FILE MB | gendata history DIR N M | gendata blobs LIST OUT")
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 1 {
		return fmt.Errorf("bad count %q", args[2])
	}
	switch args[0] {
	case "json":
		return writeJSON(args[1], n)
	case "large":
		return writeLarge(args[1], int64(n)<<20)
	}
	return fmt.Errorf("unknown data set %q", args[0])
}

// writeJSON writes n event-shaped JSON documents of about 1 KiB each.
// The sequence number in each makes every document distinct.
func writeJSON(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewChaCha8(seed))
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("e%07d.json", i)), event(rng, i), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// event returns one document of 1000-1100 bytes.
func event(rng *rand.Rand, i int) []byte {
	b := fmt.Appendf(nil, `{"kind":"tool","seq":%d,"run":"run-%04d","tool":%q,"tokens":{"in":%d,"out":%d},"cost_usd":%d.%04d,"args":[`,
		i, i/100, pick(rng), rng.IntN(20000), rng.IntN(4000), rng.IntN(3), rng.IntN(10000))
	for j := range 4 {
		if j > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, pick(rng)+"/"+pick(rng))
	}
	b = append(b, `],"output":"`...)
	target := 1000 + rng.IntN(100)
	for len(b) < target-2 {
		b = append(b, pick(rng)...)
		b = append(b, ' ')
	}
	return append(b, `"}`...)
}

// pick returns a random word.
func pick(rng *rand.Rand) string { return words[rng.IntN(len(words))] }

// writeLarge writes size pseudo-random bytes to path.
func writeLarge(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	src := rand.NewChaCha8(seed)
	buf := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(buf)) {
		chunk := buf[:min(int64(len(buf)), left)]
		src.Read(chunk)
		if _, err := w.Write(chunk); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
