package main

import (
	"sort"

	"github.com/tinehq/tine/plumbing"
)

// countObjectsCmd is `tine count-objects`.
type countObjectsCmd struct {
	jsonFlag
}

// Help shows an example under `tine count-objects --help`.
func (c *countObjectsCmd) Help() string {
	return `Counts stored objects and their stored sizes, by type, without
verifying them (use tine fsck for that).

Example:

    $ tine count-objects
    4 objects, 1083 bytes
      blob    1    127 bytes
      event   2    602 bytes
      run     1    354 bytes`
}

// Run counts the objects.
func (c *countObjectsCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.CountObjects(e.ctx, r, plumbing.CountObjectsOptions{})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printCount(p, res) })
}

// printCount renders the total, then one line per type in name order.
func printCount(p *printer, res *plumbing.CountObjectsResult) {
	p.printf("%d objects, %d bytes\n", res.Count, res.Size)
	for _, t := range sortedKeys(res.ByType) {
		tc := res.ByType[t]
		p.printf("  %-11s %4d %8d bytes\n", t, tc.Count, tc.Size)
	}
	if res.Temp > 0 {
		p.printf("%d leftover temporary files (from interrupted writes; tine fsck --remove-stale)\n", res.Temp)
	}
}

// sortedKeys returns a string-keyed map's keys in order; the key type is
// inferred, so no objects type is named here.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
