package main

import (
	"sort"

	"github.com/tinehq/tine/plumbing"
)

// countObjectsCmd is `tine count-objects`.
type countObjectsCmd struct {
	Verbose bool `name:"verbose" short:"v" help:"Also report storage packs: packs, their size, packed objects and leftovers (git count-objects -v)."`
	jsonFlag
}

// Help shows an example under `tine count-objects --help`.
func (c *countObjectsCmd) Help() string {
	return `Counts loose objects and their stored sizes, by type, without
verifying them (use tine fsck for that). Where storage packs hold objects,
each type's line also counts its packed objects and their envelope bytes
(read from the pack indexes; nothing is decompressed). -v adds the storage
packs, their size on disk, the objects they hold and leftovers of
interrupted writes.

Example:

    $ tine count-objects
    4 objects, 906 bytes
      annotation     0        0 bytes
      attestation    0        0 bytes
      blob           1       66 bytes
      event          1      170 bytes
      run            2      670 bytes
    $ tine gc && tine count-objects
    packed 4 objects into pack-3f0c…; removed 4 loose files, 0 old packs
    4 objects: 0 loose (0 bytes), 4 packed
      annotation     0        0 bytes loose,       0 packed          0 bytes
      attestation    0        0 bytes loose,       0 packed          0 bytes
      blob           0        0 bytes loose,       1 packed         66 bytes
      event          0        0 bytes loose,       1 packed        170 bytes
      run            0        0 bytes loose,       2 packed        670 bytes`
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
	return e.emit(c.JSON, res, func(p *printer) {
		printCount(p, res)
		if c.Verbose {
			printCountPacks(p, res)
		}
	})
}

// printCountPacks renders the pack figures of count-objects -v.
func printCountPacks(p *printer, res *plumbing.CountObjectsResult) {
	p.printf("packs: %d, %d bytes\n", res.Packs, res.PackSize)
	p.printf("in-pack: %d objects\n", res.InPack)
	p.printf("garbage: %d, %d bytes\n", res.Garbage, res.GarbageSize)
	if !res.StoragePacks {
		p.printf("storage-packs: off (sha256: every object is kept loose for OpenTine)\n")
	}
}

// printCount renders the total, then one line per type in name order.
func printCount(p *printer, res *plumbing.CountObjectsResult) {
	if res.InPack == 0 {
		p.printf("%d objects, %d bytes\n", res.Count, res.Size)
	} else {
		p.printf("%d objects: %d loose (%d bytes), %d packed\n", res.Total, res.Count, res.Size, res.InPack)
	}
	for _, t := range sortedKeys(res.ByType) {
		tc := res.ByType[t]
		if res.InPack == 0 {
			p.printf("  %-11s %4d %8d bytes\n", t, tc.Count, tc.Size)
			continue
		}
		pc := res.InPackByType[t]
		p.printf("  %-11s %4d %8d bytes loose, %7d packed %10d bytes\n", t, tc.Count, tc.Size, pc.Count, pc.Size)
	}
	if n := res.Total - res.Count; n > 0 && !res.StoragePacks {
		p.printf("%d objects only in storage packs, which OpenTine cannot read: tine gc writes them back out loose\n", n)
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
