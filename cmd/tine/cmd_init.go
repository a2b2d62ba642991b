package main

import "github.com/tinehq/tine/plumbing"

// initCmd is `tine init [--object-format blake3|sha256] [DIR]`.
type initCmd struct {
	ObjectFormat string `name:"object-format" enum:"blake3,sha256" default:"blake3" help:"Object hash of the new repository: blake3 (default) or sha256 (OpenTine-compatible)."`
	StoragePacks bool   `name:"storage-packs" help:"sha256 only: let tine keep objects in storage packs (objects/pack/), which OpenTine cannot read. blake3 repositories always use them."`
	Dir          string `arg:"" optional:"" name:"dir" help:"Directory to create the repository in (as DIR/.tine); default: the current directory."`
	jsonFlag
}

// Help shows an example under `tine init --help`.
func (c *initCmd) Help() string {
	return `The hash is fixed for the life of the repository. Initialising where a
repository already exists is refused. A sha256 repository keeps every
object as a loose file, so OpenTine reads it, unless --storage-packs lets
tine keep objects in storage packs (faster bulk writes and reads, but
OpenTine then misses the packed objects; tine gc --no-storage-packs undoes
it).

Example:

    $ tine init --object-format sha256 myproject
    Initialized empty tine repository (sha256) in /home/me/myproject/.tine`
}

// Run creates the repository.
func (c *initCmd) Run(e *env) error {
	if err := e.refuseRepoFlag("give the directory as DIR"); err != nil {
		return err
	}
	if c.StoragePacks && c.ObjectFormat != "sha256" {
		return usagef("--storage-packs is for sha256 repositories; blake3 ones always use storage packs")
	}
	// The hash's type is taken from the result struct so this package
	// need not import objects (ARCHITECTURE.md §3).
	algo := plumbing.InitResult{}.ObjectFormat
	setString(&algo, c.ObjectFormat)
	r, out, err := plumbing.Init(c.Dir, algo)
	if err != nil {
		return err
	}
	if c.StoragePacks {
		if err := r.SetStoragePacks(true); err != nil {
			r.Close()
			return err
		}
		out.StoragePacks = true
	}
	if err := r.Close(); err != nil {
		return err
	}
	return e.emit(c.JSON, out, func(p *printer) {
		format := string(out.ObjectFormat)
		if c.StoragePacks {
			format += ", storage packs"
		}
		p.printf("Initialized empty tine repository (%s) in %s\n", format, out.Path)
	})
}
