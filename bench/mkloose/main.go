// Command mkloose stores files as loose blobs in a tine repository:
//
//	mkloose REPO < paths
//
// It runs the same code as `tine hash-object -w --stdin-paths` but hands it
// the repository's loose store instead of the pack-writing one, so the
// benchmark harness can time fsck over loose objects (as git's loose
// objects after `git hash-object -w`). It prints the number of objects.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/plumbing"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkloose REPO < paths")
		os.Exit(2)
	}
	n, err := run(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkloose:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}

// run writes every path listed on stdin into repo's loose store.
func run(repo string) (int, error) {
	r, err := plumbing.Open(repo)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	loose, err := loose.Open(filepath.Join(r.Root(), "objects"), r.Algo())
	if err != nil {
		return 0, err
	}
	res, err := plumbing.HashObjectPaths(context.Background(), r, plumbing.HashPathsOptions{
		Write: true, Paths: os.Stdin, Store: loose,
	}, func(plumbing.HashedObject) error { return nil })
	if err != nil {
		return 0, err
	}
	return res.Objects, nil
}
