package main

import (
	"bufio"
	"fmt"
	"os"
)

// writeBlobStream writes to out a git fast-import stream holding, in
// order, one blob (marked :1, :2, ...) per file named in list: the bulk
// case's git fast-import input, the same bytes tine's hash-object reads
// from the files themselves.
func writeBlobStream(list, out string) error {
	in, err := os.Open(list)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	sc := bufio.NewScanner(in)
	n := 0
	for sc.Scan() {
		data, err := os.ReadFile(sc.Text())
		if err != nil {
			f.Close()
			return err
		}
		n++
		fmt.Fprintf(w, "blob\nmark :%d\ndata %d\n", n, len(data))
		w.Write(data)
		w.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
