package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// historyEpoch is the first commit's time in the git streams: fixed, so
// every run builds the same commits.
const historyEpoch = 1700000000

// writeHistory writes the history case's inputs into dir: main.jsonl (n
// events for `tine import`, one per line) and div.jsonl (m events for the
// fork), and the git equivalents main.fi (n commits on refs/heads/main)
// and div.fi (m commits on refs/heads/div from main~m), streams for
// `git fast-import`. Event i of tine and commit i of git carry the same
// ~1 KiB document: the import line as its output, the commit as a new file
// (in a directory of 100).
func writeHistory(dir string, n, m int) error {
	if m >= n {
		return fmt.Errorf("the fork (%d events) must be shorter than the run (%d)", m, n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewChaCha8(seed))
	if err := writeBranch(dir, "main", rng, 0, n, ""); err != nil {
		return err
	}
	return writeBranch(dir, "div", rng, n, m, "refs/heads/main~"+strconv.Itoa(m))
}

// writeBranch writes NAME.jsonl and NAME.fi: count events, numbered from
// first, the git commits starting from the commit-ish from ("" for a root).
func writeBranch(dir, name string, rng *rand.Rand, first, count int, from string) error {
	return writeFiles(filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".fi"), func(jl, fi *bufio.Writer) error {
		for i := first; i < first+count; i++ {
			doc := event(rng, i)
			tool := pick(rng)
			fmt.Fprintf(jl, "{\"kind\":\"tool\",\"tool\":%q,\"seq\":%d,\"output\":%s}\n", tool, i, strconv.Quote(string(doc)))
			msg := fmt.Sprintf("tool %s seq %d\n", tool, i)
			fmt.Fprintf(fi, "commit refs/heads/%s\ncommitter bench <bench@example.invalid> %d +0000\ndata %d\n%s",
				name, historyEpoch+i, len(msg), msg)
			if i == first && from != "" {
				fmt.Fprintf(fi, "from %s\n", from)
			}
			// 100 files a directory: in one flat directory every commit
			// would rewrite a tree of all the files before it, a cost of
			// the layout rather than of git.
			fmt.Fprintf(fi, "M 100644 inline %05d/%s%07d.json\ndata %d\n%s\n\n", i/100, name[:1], i, len(doc), doc)
		}
		return nil
	})
}

// writeFiles creates two files, lets fill write them through buffers, and
// closes both, reporting the first error.
func writeFiles(a, b string, fill func(wa, wb *bufio.Writer) error) error {
	fa, err := os.Create(a)
	if err != nil {
		return err
	}
	defer fa.Close()
	fb, err := os.Create(b)
	if err != nil {
		return err
	}
	defer fb.Close()
	wa, wb := bufio.NewWriterSize(fa, 1<<20), bufio.NewWriterSize(fb, 1<<20)
	if err := fill(wa, wb); err != nil {
		return err
	}
	for _, w := range []*bufio.Writer{wa, wb} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := fa.Close(); err != nil {
		return err
	}
	return fb.Close()
}
