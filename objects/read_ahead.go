package objects

import (
	"io"
	"os"
)

// readAhead reads its input on another goroutine into memory its consumer
// names in advance (prefetch), so that the read system call's copy out of
// the page cache overlaps the consumer's work on the bytes before (issue
// 13: the scrub's search and the hashing of the chunk before). When the
// next Read asks for exactly that memory the bytes are already there;
// otherwise they are copied where it asks.
//
// The consumer must not write into or free memory named by prefetch
// until a Read has consumed it or detach has moved it aside.
type readAhead struct {
	in      io.Reader
	done    chan fetched // the outstanding read's result, one at a time
	busy    bool         // a read is outstanding
	pending []byte       // read ahead, not yet returned by Read
	err     error        // the input's error after pending (io.EOF at its end)
	own     []byte       // where detach moves pending
}

// fetched is the result of one read ahead.
type fetched struct {
	dst []byte
	n   int
	err error
}

// newReadAhead returns a readAhead over f, or nil when f is not a regular
// file: only a regular file's reads end promptly, which settle relies on
// (a pipe's could block until its writer writes).
func newReadAhead(f *os.File) *readAhead {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return &readAhead{in: f, done: make(chan fetched, 1)}
}

// prefetch starts reading the input into dst, unless a read is already
// outstanding or bytes are pending.
func (a *readAhead) prefetch(dst []byte) {
	if a.busy || len(a.pending) > 0 || a.err != nil || len(dst) == 0 {
		return
	}
	a.busy = true
	go func() {
		n, err := io.ReadFull(a.in, dst)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		a.done <- fetched{dst, n, err}
	}()
}

// settle waits for the outstanding read, if any.
func (a *readAhead) settle() {
	if a.busy {
		f := <-a.done
		a.busy = false
		a.pending, a.err = f.dst[:f.n], f.err
	}
}

// detach settles and moves the pending bytes into memory of its own, so
// the consumer may write where they were read.
func (a *readAhead) detach() {
	a.settle()
	if len(a.pending) > 0 && (len(a.own) == 0 || &a.pending[0] != &a.own[0]) {
		a.own = append(a.own[:0], a.pending...)
		a.pending = a.own
	}
}

// Read implements io.Reader: the bytes read ahead first, in place when p
// is the memory they were read into.
func (a *readAhead) Read(p []byte) (int, error) {
	a.settle()
	if len(p) == 0 {
		return 0, nil
	}
	if len(a.pending) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		return a.in.Read(p)
	}
	var n int
	if &p[0] == &a.pending[0] {
		n = min(len(p), len(a.pending))
	} else {
		n = copy(p, a.pending)
	}
	a.pending = a.pending[n:]
	return n, nil
}
