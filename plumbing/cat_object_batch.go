package plumbing

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
)

// MaxBatchLine bounds one line of a cat-object --batch query stream, LF
// excluded. A revision is at most MaxRevisionLen bytes, so a longer line
// can only be garbage; it is refused before it is buffered whole.
const MaxBatchLine = 4096

// CatBatchOptions configures CatObjectBatch.
type CatBatchOptions struct {
	// Input holds one revision per LF-terminated line (a final line may
	// lack its LF); a trailing CR is ignored.
	Input io.Reader
}

// CatBatchEntry is one answer of CatObjectBatch: the object a query line
// named, or nil Object when it names none (git prints "<query> missing").
type CatBatchEntry struct {
	// Query is the input line, without its line ending.
	Query string
	// Object is the verified object, or nil when the query names none.
	Object *objects.Object
	// Ambiguous is set, with a nil Object, when the query is a prefix or
	// short name matching several objects or refs.
	Ambiguous bool
}

// AppendHeader appends the batch header line of e to b: "OID TYPE SIZE\n"
// for an object (the form of `git cat-file --batch`), "QUERY missing\n" or
// "QUERY ambiguous\n" otherwise. The body, then one LF, follows an
// object's header in the batch output.
func (e CatBatchEntry) AppendHeader(b []byte) []byte {
	switch {
	case e.Object != nil:
		id := e.Object.ID
		b = append(b, id.Type...)
		b = append(b, ':')
		b = append(b, id.Algo...)
		b = append(b, ':')
		b = hex.AppendEncode(b, id.Digest[:])
		b = append(b, ' ')
		b = append(b, e.Object.Type...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(len(e.Object.Body)), 10)
	case e.Ambiguous:
		b = append(b, e.Query...)
		b = append(b, " ambiguous"...)
	default:
		b = append(b, e.Query...)
		b = append(b, " missing"...)
	}
	return append(b, '\n')
}

// CatBatchResult summarizes a CatObjectBatch call.
type CatBatchResult struct {
	// Objects counts the objects emitted.
	Objects int `json:"objects"`
	// Missing counts the queries that named no object (or several).
	Missing int `json:"missing"`
}

// Pipeline bounds of CatObjectBatch.
const (
	// batchChunk is how many queries one worker job answers.
	batchChunk = 16
	// batchAhead is how many jobs per worker may be in flight: memory holds
	// at most workers*batchAhead*batchChunk objects.
	batchAhead = 2
)

// CatObjectBatch is `tine cat-object --batch`: for each line of opt.Input it
// resolves the revision (a full oid takes a fast path that skips ref
// lookup), reads and verifies the object and calls emit, in input order.
// A query naming no object, or naming several, is reported through emit
// with a nil Object and does not stop the stream, as in git; a stored
// object that fails verification does stop it, with an error naming the
// object, since a batch consumer must never receive bad bytes as data.
//
// Reads run on GOMAXPROCS workers, a few small jobs ahead of the output
// (decompressing pack blocks is the cost), so memory holds a bounded
// number of objects; emit is called from the calling goroutine only, and
// everything before a failing line is emitted before the error returns.
func CatObjectBatch(ctx context.Context, r *Repo, opt CatBatchOptions, emit func(CatBatchEntry) error) (*CatBatchResult, error) {
	if opt.Input == nil {
		return nil, fmt.Errorf("cat-object --batch: no input: %w", ErrBadInput)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *batchJob)
	order := make(chan *batchJob, workers*batchAhead)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.answer(ctx, r)
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer close(order)
		readBatchJobs(ctx, opt.Input, jobs, order)
	}()
	res := &CatBatchResult{}
	err := collectBatch(ctx, order, res, emit)
	cancel()
	for range order {
		// Drain, so the reader goroutine can finish.
	}
	wg.Wait()
	return res, err
}

// batchJob is a run of consecutive query lines and their answers.
type batchJob struct {
	firstLine int
	queries   []string
	entries   []CatBatchEntry
	err       error // the first failure, at line firstLine+len(entries)
	done      chan struct{}
}

// answer looks every query of j up, stopping at the first failure.
func (j *batchJob) answer(ctx context.Context, r *Repo) {
	defer close(j.done)
	store := r.Objects()
	for _, q := range j.queries {
		if err := ctx.Err(); err != nil {
			j.err = err
			return
		}
		e, err := batchLookup(ctx, r, store, q)
		if err != nil {
			j.err = err
			return
		}
		j.entries = append(j.entries, e)
	}
}

// readBatchJobs splits the input into jobs, handing each to the workers
// and, in input order, to the collector. A read failure becomes a job
// holding only that error, after which reading stops.
func readBatchJobs(ctx context.Context, in io.Reader, jobs, order chan<- *batchJob) {
	br := bufio.NewReaderSize(in, 64<<10)
	line := 1
	for {
		j := &batchJob{firstLine: line, done: make(chan struct{})}
		var rerr error
		for len(j.queries) < batchChunk {
			q, err := readBatchLine(br)
			if err != nil {
				rerr = err
				break
			}
			j.queries = append(j.queries, q)
			line++
		}
		if len(j.queries) > 0 {
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				f := &batchJob{firstLine: line, err: rerr, done: make(chan struct{})}
				close(f.done)
				select {
				case order <- f:
				case <-ctx.Done():
				}
			}
			return
		}
	}
}

// collectBatch emits the answers of the jobs in input order and returns
// the first failure, naming its line.
func collectBatch(ctx context.Context, order <-chan *batchJob, res *CatBatchResult, emit func(CatBatchEntry) error) error {
	for j := range order {
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, e := range j.entries {
			if e.Object == nil {
				res.Missing++
			} else {
				res.Objects++
			}
			if err := emit(e); err != nil {
				return err
			}
		}
		if j.err != nil {
			if errors.Is(j.err, context.Canceled) && ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("cat-object --batch: line %d: %w", j.firstLine+len(j.entries), j.err)
		}
	}
	return ctx.Err()
}

// readBatchLine returns the next line without its LF (and CR), io.EOF at
// the end of the stream, or an error for a line over MaxBatchLine.
func readBatchLine(br *bufio.Reader) (string, error) {
	b, err := br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", fmt.Errorf("line longer than %d bytes: %w", MaxBatchLine, ErrBadInput)
	case errors.Is(err, io.EOF) && len(b) == 0:
		return "", io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return "", err
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if len(s) > MaxBatchLine {
		return "", fmt.Errorf("line longer than %d bytes: %w", MaxBatchLine, ErrBadInput)
	}
	return s, nil
}

// batchLookup answers one query. Names that resolve to nothing are
// reported as missing; read failures of a present object are errors.
func batchLookup(ctx context.Context, r *Repo, store objects.Store, q string) (CatBatchEntry, error) {
	e := CatBatchEntry{Query: q}
	id, err := objects.ParseOIDFor(r.Algo(), q)
	if err != nil {
		// Not a full oid of this repository: anything RevParse accepts.
		// A miss is missing, on the shallow boundary or not, so the
		// shallow file is not read to tell them apart.
		id, _, err = r.resolveRevision(ctx, q, false)
		switch {
		case errors.Is(err, ErrAmbiguousRevision):
			e.Ambiguous = true
			return e, nil
		case errors.Is(err, ErrUnknownRevision), errors.Is(err, ErrBeyondShallow), errors.Is(err, ErrBadRevision), errors.Is(err, objects.ErrNotFound):
			// ErrBeyondShallow still comes from REV~N whose walk meets
			// the boundary.
			return e, nil
		case err != nil:
			return e, err
		}
	}
	o, err := getPackedFirst(ctx, r, store, id)
	switch {
	case errors.Is(err, objects.ErrNotFound):
		return e, nil
	case err != nil:
		return e, err
	}
	e.Object = o
	return e, nil
}

// getPackedFirst reads id from the storage packs first and falls back to
// the repository's store (loose files, then the packs again, re-scanned on
// a miss). Packs hold nearly everything in a repository that has been
// gc'd, so this spares a failed loose-file open per object; both copies of
// an object are the same bytes and every read is re-hashed, so the answer
// is the store's. A damaged packed copy falls back too, so a sound loose
// copy still wins and a damage-only object still fails. An object the
// store does not have is not found, asked with Has: the store's Get
// classifies a miss against the shallow file (classifyMiss), which for an
// id the file does not list means reading the whole file again, once a
// query, and the batch reports every miss alike.
func getPackedFirst(ctx context.Context, r *Repo, store objects.Store, id objects.OID) (*objects.Object, error) {
	if r.packs != nil {
		if o, err := r.packs.Get(ctx, id); err == nil {
			return o, nil
		}
	}
	if ok, err := store.Has(ctx, id); err == nil && !ok {
		return nil, objects.NotFound(id)
	}
	return store.Get(ctx, id)
}
