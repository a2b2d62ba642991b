package main

import (
	"fmt"

	"github.com/tinehq/tine/plumbing"
)

// verifyPackCmd is `tine verify-pack`.
type verifyPackCmd struct {
	Packs []string `arg:"" optional:"" name:"pack" help:"Packs to check (pack-<hex>, with or without .pack/.idx); default: every pack."`
	jsonFlag
}

// Help explains verify-pack under `tine verify-pack --help`.
func (c *verifyPackCmd) Help() string {
	return `Checks storage packs completely: the index's checksum and structure,
the pack's trailer checksum, and every entry's CRC-32C, decompression and
re-derived oid. A damaged pack exits 1 naming the damaged objects.

Example:

    $ tine verify-pack
    ok pack-5be1…: 1204 objects`
}

// Run verifies the packs.
func (c *verifyPackCmd) Run(e *env) error {
	r, err := e.openRepoDamagedPacks()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.VerifyPack(e.ctx, r, plumbing.VerifyPackOptions{Packs: c.Packs})
	if err != nil {
		return err
	}
	err = e.emit(c.JSON, res, func(p *printer) {
		for _, pc := range res.Packs {
			if pc.OK {
				p.printf("%s %s: %d objects\n", p.good("ok"), pc.Pack, pc.Objects)
			} else {
				p.printf("%s %s: %s\n", p.bad("FAILED"), pc.Pack, oneLine(pc.Error))
			}
		}
		if len(res.Packs) == 0 {
			p.printf("no storage packs\n")
		}
	})
	if err != nil || res.OK() {
		return err
	}
	if c.JSON {
		return &silentError{code: exitFailure}
	}
	bad := 0
	for _, pc := range res.Packs {
		if !pc.OK {
			bad++
		}
	}
	return fmt.Errorf("%d pack(s) failed verification, listed above", bad)
}

// openRepoDamagedPacks opens the repository like openRepo but tolerates
// storage packs that cannot be opened, for the verbs that report them.
func (e *env) openRepoDamagedPacks() (*plumbing.Repo, error) {
	return e.openRepoWith(plumbing.OpenOptions{AllowDamagedPacks: true})
}
