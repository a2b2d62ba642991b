// Package refs names runs: ref names and namespaces, ref files, the
// compare-and-swap update protocol, multi-ref transactions, reflogs and the
// shallow file of a tine (OpenTine v3) repository. It is the only package
// that locks refs.
//
// # Names (SPEC §2.4)
//
// A ref name is <namespace>/<component>/..., the namespace one of
// annotations, heads, tags, experiments, promotions and remotes, every byte
// in [a-z0-9._/-], at most 512 bytes, each component at most 240 bytes, not
// empty, ".", "..", containing "..", ending in "." or ".lock", nor a Windows
// device stem. A leading "refs/" is accepted and dropped (NormalizeName).
// heads/, experiments/ and promotions/ point at runs; annotations/<x> at an
// annotation of the run whose 64-hex digest is <x>; tags/ and remotes/ at
// anything (CheckTarget, SPEC §2.5).
//
// # Files this package owns, relative to the repository root
//
//	refs/<name>          "<oid>\n". Readers also accept "<oid>" and
//	                     "<oid>\r\n"; at most 256 bytes, ASCII, a regular
//	                     file with at most one link, never a symlink.
//	refs/<name>.lock     guard: created with O_CREAT|O_EXCL, read-only
//	                     (mode 0444, the mark of a tine guard), by the
//	                     writer that owns the ref for one update; holds that
//	                     writer's 32-hex transaction id and is flocked by
//	                     it until removed. A second writer fails at once
//	                     with *LockedError while that writer lives, and
//	                     recovers the guard once it has died.
//	refs/<name>..lock    staging file: the new "<oid>\n", fsynced, then
//	                     renamed over refs/<name>. The doubled dot makes it
//	                     neither a legal ref nor a legal guard.
//	logs/<name>          reflog: one row per update, appended after the ref
//	                     moves and fsynced (the directory first, while the
//	                     log has no complete row). A row is the v3 canonical JSON of
//	                     {"actor","new","old","ref","time_ns"} and an LF;
//	                     time_ns is a decimal string, old is null when the
//	                     ref was created. Deleting a ref appends no row (new
//	                     must be an oid) and keeps the log; re-creating it
//	                     appends a row with old null. A torn final row from
//	                     a crash is skipped on read and cut off before the
//	                     next append. Never rotated.
//	refs-txn/<id>.tmp    a multi-ref transaction's journal being written.
//	refs-txn/<id>.journal the committed journal (JSON: version, owner id,
//	                     and per ref the op, new oid and reflog row).
//	refs-txn/gate        empty; only its flock is used (see below).
//	shallow              shallow-boundary oids, one per LF-terminated line,
//	                     sorted and unique when tine writes it; the empty
//	                     set is the empty file (SPEC §2.7).
//	shallow.lock         guard serializing shallow updates, flocked like
//	                     a ref guard.
//
// # Compare-and-swap (SPEC §2.5)
//
// Store.Update and every Transaction follow git's lockfile protocol: fetch
// each new target through the objects.Getter (which re-verifies its oid)
// and apply CheckTarget, so a ref never points at a missing or wrongly
// typed object; create every guard, in name order; read each current value
// and compare it with the caller's Expect (ExpectValue, ExpectAbsent,
// ExpectAny, ExpectExists), failing with *StaleError naming expected and
// actual; write every staging file, then fsync them together (up to 32 in
// flight, in chunks of 1,024 open files); rename them over the refs and
// fsync each directory once; append the reflog rows, one append per log,
// each new log's directory fsynced once and the logs fsynced together;
// remove the guards. So a transaction costs O(refs) file fsyncs but
// O(directories) directory fsyncs, and its fsyncs share the file
// system's journal commits. Any failure before the renames leaves every
// ref and reflog unchanged.
//
// A reflog row must never become durable without the rename it records.
// In general that takes the directory fsyncs before the rows are written.
// On a file system that keeps metadata changes in order (ext4 with a
// journal, XFS, holding both refs/ and logs/: metadataOrdered asks once
// per Store) a row becomes visible
// only when its log grows, a change made after the rename, which the
// journal cannot keep without the rename; there the rows are written right
// after the renames and the directories and logs are fsynced together, so
// a one-ref update waits for two rounds of fsyncs instead of three. Both
// rounds end before Commit returns either way.
//
// # Transactions and crashes
//
// A transaction that changes one ref needs no journal: its rename is
// atomic. One that changes several writes, after all staging files are
// durable, a journal refs-txn/<id>.journal (temporary name, fsync, rename,
// fsync of the directory). That rename is the commit point. The writer
// holds an flock on the journal for as long as it lives, then applies the
// renames and deletions, appends the rows, removes the journal and finally
// the guards. If the process dies:
//
//   - before the commit point, no ref has changed. Its guards, staging
//     files and any <id>.tmp journal stay behind until the next writer of
//     one of those refs (or RemoveStaleGuards, `tine fsck --remove-stale`)
//     finds their flocks free: it discards the journal and removes the
//     staging files and guards, then proceeds.
//   - after it, Recover (run by every write, by List, and by Read of a
//     ref whose guard exists) finds the journal unlocked, renames the
//     staging files still present, performs the deletions, appends the
//     rows of the refs it moved, removes the journal and then the guards
//     holding the dead transaction's id. Guards of other writers are never
//     removed.
//
// So a crash never leaves half a transaction applied once recovery has
// run; a reflog row may be lost, which SPEC §2.6 allows (the reflog is
// history, not authority).
//
// A file operation that fails is handled the same way. Before the commit
// point (the rename of the one ref, or of the journal) the writer removes
// what it wrote and returns an error naming the step and file; nothing
// changed. From the commit point on it returns a *fsutil.UnknownStateError
// ("state unknown": the change may or may not have taken effect); a
// multi-ref transaction leaves its committed journal and guards for the
// next reader or writer to roll forward. The fault-injection tests (txn_fault_test.go) fail
// every file operation of every kind of write in turn through the
// unexported fileSystem seam.
//
// # Guards and liveness
//
// SPEC §2.5 guards say only "someone is updating this ref". To tell a live
// writer from a dead one exactly, without guessing from ages, every writer
// holds an flock on each guard it created (and on its journal, and on
// shallow.lock) for as long as it lives; the kernel drops the flock when
// the process dies, however it dies. A guard whose flock can be taken
// belongs to a dead writer. Flocks belong to open files, not processes,
// so this holds between goroutines of one process too.
//
// Recovery is the next writer's job, as SQLite's next connection rolls
// back a hot journal: a writer whose guard already exists takes the gate
// exclusive, runs Recover, and removes the guard (with its staging file)
// if its flock is free; then it creates its own guard. Only a guard whose
// writer is alive makes it fail. So no SIGKILL at any moment leaves a ref
// that needs a manual step. A command that finds nothing to change (a tag
// already at its target) is a writer too: it confirms the value under the
// guard (Store.Verify), so it recovers like any other and leaves nothing.
//
// One race remains: a guard is created with O_CREAT|O_EXCL and flocked
// just after, and a prober that took the flock in between would think a
// live writer dead and remove its guard. The gate closes it: a writer holds
// an flock on refs-txn/gate shared while it creates and flocks a guard or a
// journal, and anything that concludes "dead" from a free flock (Recover,
// the recovery of a guard by the next writer, StaleGuards,
// RemoveStaleGuards) holds it exclusive. So a prober never sees a guard
// between its creation and its flock, and no time threshold is needed.
// Writers wait for the gate only while a probe runs (one scan); guards
// themselves are never waited for.
//
// Two more rules keep removal exact. A guard is unlinked only by the holder
// of its flock: its writer removes it before dropping the flock, a remover
// after taking it and checking that the path still names the file it
// locked. And a staging file is removed only under its guard's flock, or,
// orphaned, under the exclusive gate (a staging file is written only under
// its guard). RemoveStaleGuards runs recovery first, so the guards of a
// committed transaction are rolled forward, never simply removed.
//
// And a guard is removed only once its transaction's journal is gone:
// recovery, which runs first, is the only code that finishes or discards a
// transaction with a journal.
//
// A foreign writer (OpenTine) takes no flocks, so a free flock proves
// nothing about its guards. tine's guards are read-only from the instant
// the create makes them, foreign ones are not (ownGuard): a writer recovers
// only tine's, and reports a foreign guard as a *LockedError with Foreign
// set; RemoveStaleGuards removes foreign guards by age
// (RemoveOptions.OlderThan).
package refs
