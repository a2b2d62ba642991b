package plumbing

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
)

// pathJob is a chunk of consecutive input paths, read by one worker. The
// collector receives chunks in input order and waits on done.
type pathJob struct {
	seq       int64
	firstLine int
	paths     []string
	results   []pathResult
	err       error // the path list itself failed (read error, bad line)
	done      chan struct{}
}

// pathPipeline reads the path list, fans chunks out to workers and hands
// them to the collector in input order.
type pathPipeline struct {
	order  chan *pathJob
	budget *readBudget
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// orderedChunks is how many chunks the in-order queue holds: a whole
// storage-pack batch (DefaultPackBulkObjects paths) and more, so the
// workers read the next batch while the collector compresses and writes
// one. With a few chunks per worker they stopped 512 files into each
// batch write; the read budget still bounds the bytes held.
const orderedChunks = 2 * DefaultPackBulkObjects / pathChunk

// startPathReaders starts the list reader and workers goroutines calling
// read on every path. The in-order queue holds orderedChunks chunks, and
// the read budget bounds the bytes they hold.
func startPathReaders(ctx context.Context, list io.Reader, workers int, read func(path string, hold func(int64) bool) pathResult) *pathPipeline {
	ctx, cancel := context.WithCancel(ctx)
	p := &pathPipeline{order: make(chan *pathJob, max(orderedChunks, 4*workers)), budget: newReadBudget(readBudgetBytes), cancel: cancel}
	jobs := make(chan *pathJob, 4*workers)
	p.wg.Go(func() {
		defer close(p.order)
		defer close(jobs)
		p.split(ctx, list, jobs)
	})
	for range workers {
		p.wg.Go(func() {
			for j := range jobs {
				hold := func(n int64) bool { return p.budget.acquire(n, j.seq) }
				for i, path := range j.paths {
					if ctx.Err() != nil {
						j.results[i] = pathResult{err: ctx.Err()}
						continue
					}
					j.results[i] = read(path, hold)
				}
				close(j.done)
			}
		})
	}
	return p
}

// split reads the path list into chunks, sending each to the collector
// (in order) and to the workers. An empty line or an over-long one ends
// the list with an error chunk.
func (p *pathPipeline) split(ctx context.Context, list io.Reader, jobs chan<- *pathJob) {
	sc := bufio.NewScanner(list)
	sc.Buffer(make([]byte, 0, 64<<10), maxPathLine)
	var seq int64
	line := 0
	send := func(j *pathJob, toWorkers bool) bool {
		select {
		case p.order <- j:
		case <-ctx.Done():
			return false
		}
		if !toWorkers {
			close(j.done)
			return true
		}
		select {
		case jobs <- j:
			return true
		case <-ctx.Done():
			close(j.done)
			return false
		}
	}
	cur := &pathJob{seq: seq, firstLine: 1, done: make(chan struct{})}
	for sc.Scan() {
		line++
		path := sc.Text()
		if path == "" {
			break
		}
		cur.paths = append(cur.paths, path)
		if len(cur.paths) == pathChunk {
			cur.results = make([]pathResult, len(cur.paths))
			if !send(cur, true) {
				return
			}
			seq++
			cur = &pathJob{seq: seq, firstLine: line + 1, done: make(chan struct{})}
		}
	}
	var tail error
	switch {
	case sc.Err() != nil:
		tail = fmt.Errorf("hash-object: path list, line %d: %w", line+1, sc.Err())
	case line > 0 && line != cur.firstLine-1+len(cur.paths):
		tail = fmt.Errorf("hash-object: path list, line %d: empty path: %w", line, ErrBadInput)
	}
	if len(cur.paths) > 0 {
		cur.results = make([]pathResult, len(cur.paths))
		if !send(cur, true) {
			return
		}
		seq++
	}
	if tail != nil {
		send(&pathJob{seq: seq, err: tail, done: make(chan struct{})}, false)
	}
}

// stop cancels the readers, wakes any waiting on budget and waits for all
// of them, so no file stays open after HashObjectPaths returns.
func (p *pathPipeline) stop() {
	p.cancel()
	p.budget.close()
	for j := range p.order {
		_ = j // drain so the list reader can exit
	}
	p.wg.Wait()
}
