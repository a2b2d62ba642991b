// Package plumbing is tine's low-level command layer: the Repo handle that
// creates, opens and confines a repository directory, and one function per
// plumbing verb (init, hash-object, cat-object, update-ref, delete-ref, refs,
// reflog, rev-parse, fsck, count-objects). Each verb takes a context, the
// repository and an options struct, and returns a result struct whose json
// tags are exactly what `tine VERB --json` prints (cmd/tine adds "command").
// Nothing here prints or exits.
//
// # Repository layout (SPEC §2.1)
//
// A repository is a directory holding config.json: either DIR/.tine of a work
// directory, or a "bare" directory. tine init writes
//
//	config.json                  {"format":3,"object_hash":"<algo>","repository":"opentine","version":1} + LF
//	objects/<type>/<2hex>/<62hex> loose objects (package objects)
//	refs/{annotations,heads,tags}/ ref files "<oid>\n" (package refs)
//	logs/                        reflogs (package refs)
//	packs/                       TINEPACK3 frames
//	indexes/                     reserved (SPEC: always empty)
//	shallow                      optional shallow-boundary oid list (package refs)
//
// For sha256 the config bytes are exactly OpenTine's, so OpenTine opens a
// sha256 repository written by tine, and every object in it is a loose file
// OpenTine reads: tine's storage packs (objects/pack/, which OpenTine
// skips) are used there only after the opt-in file storage-packs
// (storage_packs.go). A blake3 repository differs only in "object_hash";
// OpenTine refuses it as incompatible, which is correct, and always uses
// storage packs.
// Opening a repository (re)creates any missing standard directory, as
// OpenTine does.
//
// # Path confinement (SPEC §2.1)
//
// The repository root may be reached through symlinks (a user's choice), but
// nothing inside it may be: a standard directory or config.json that is a
// symlink (or not a directory / regular file) is refused, and names that
// come from data (ref names, oids) never contain "", "." or ".." components
// and never escape the root. Object paths are derived from parsed oids only.
//
// # Revisions
//
// Every verb that names an object accepts a revision (see RevParse): a full
// oid, a unique hex prefix of at least 4 digits, a ref name with or without
// "refs/", a short name resolved git-like (heads/, tags/, experiments/,
// promotions/, remotes/, annotations/ tried in that order; more than one
// match is an error), and NAME@{n} for the n-th previous value in the reflog.
//
// # Crashes and leftovers
//
// Objects are durable before any ref names them, and refs move by
// compare-and-swap under a guard file (package refs), so a killed writer
// leaves no corruption. It can leave leftovers: object temp files, and the
// guard (<ref>.lock) and staging (<ref>..lock) files of a ref update that
// died before its commit point. Multi-ref transactions that died after
// their commit point are rolled forward by the ref store's recovery, which
// every ref write and Fsck run first. A dead writer's guard never blocks
// its ref: every writer holds an flock on its guards while it lives, so the
// next writer of the ref knows the guard's writer is dead and removes it
// (package refs). The remaining leftovers are fsck warnings, never
// problems, and `tine fsck --remove-stale` (FsckOptions.RemoveStale)
// deletes them. The crash test of this package kills a writer with SIGKILL
// dozens of times and checks exactly this.
package plumbing
