package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tinehq/tine/objects"
)

// pathInput is one opened --stdin-paths input (hash_object_input_unix.go,
// hash_object_input_other.go).
type pathInput interface {
	io.Reader
	stat() (inputStat, error)
	close()
}

// inputStat is what readPathInput needs of an input's fstat.
type inputStat struct {
	dir, regular bool
	size         int64
}

// readPathInput opens path and reads it whole. It returns nil data and no
// error for a blob to stream instead: not a regular file, or over
// inlineMax. A regular file over the object bound is refused from its
// size (as checkInputStat does), before hold takes read budget for it.
// held is the budget taken, to release once the bytes are consumed.
func readPathInput(path string, blob bool, hold func(int64) bool) (data []byte, held int64, err error) {
	in, err := openPathInput(path)
	if err != nil {
		return nil, 0, err
	}
	defer in.close()
	st, err := in.stat()
	switch {
	case err != nil:
		return nil, 0, err
	case st.dir:
		return nil, 0, errors.New("is a directory")
	case st.regular && st.size > objects.MaxLooseObjectSize:
		return nil, 0, fmt.Errorf("%s is %d bytes, more than the %d-byte object bound: %w",
			path, st.size, int64(objects.MaxLooseObjectSize), ErrBadInput)
	case blob && (!st.regular || st.size > inlineMax):
		return nil, 0, nil
	}
	held = max(st.size, 0)
	if !hold(held) {
		return nil, held, context.Canceled
	}
	data, err = readSized(in, held, path)
	if err == nil && data == nil {
		data = []byte{}
	}
	return data, held, err
}

// readSized reads an input whose size fstat just gave, in one allocation
// and, when the file is that size, one read: like git, which reads the
// st_size bytes of a file it hashes, it stops once it holds them, without
// a second read to see the end. A file found longer (grown since) is read
// on to its end under the object bound; a shorter one to where it ends.
func readSized(r io.Reader, size int64, name string) ([]byte, error) {
	buf := make([]byte, size+1)
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		switch {
		case err == io.EOF:
			return buf[:n], nil
		case err != nil:
			return nil, err
		case m > 0 && int64(n) == size:
			return buf[:n], nil
		}
	}
	rest, err := readBounded(r, name)
	if err != nil {
		return nil, err
	}
	if int64(len(buf)+len(rest)) > objects.MaxLooseObjectSize {
		return nil, fmt.Errorf("hash-object: %s is larger than %d bytes: %w", name, int64(objects.MaxLooseObjectSize), ErrBadInput)
	}
	return append(buf, rest...), nil
}
