// Package pack is tine's storage packs: many objects in one compressed file
// with an index, git's objects/pack idea (ARCHITECTURE §2). Its Store reads
// them (an objects.Getter, and Has and List), its Writer writes them, and
// Verify, Walk, RebuildIndex and RemoveGarbage serve fsck, gc and
// index-pack. Storage packs live in objects/pack/, a directory OpenTine's
// reader skips (SPEC §2.1: it only enumerates the five type directories),
// and hold the same envelope bytes a loose object file holds (SPEC §1.2),
// compressed. They are not
// TINEPACK3 transfer frames (SPEC §2.8), which stay the interchange format.
//
// One pack is two files named by the pack's trailer checksum H (64 lowercase
// hex digits of the SHA-256 of the pack file before its trailer):
//
//	objects/pack/pack-H.pack   the objects
//	objects/pack/pack-H.idx    the index that makes them findable
//
// Naming by the pack's content makes a rewrite of the same pack byte for
// byte identical, so a rename over an existing pack of the same name is
// harmless. All integers are big-endian.
//
// Pack file:
//
//	header   16 bytes  "TINESPK\x00", version uint32 (1), algo uint8
//	                   (1 sha256, 2 blake3), 3 zero bytes
//	blocks   ...       each: kind uint8 (0 stored, 1 zstd frame, 2 run
//	                   delta), raw length uint32, then the payload; the
//	                   payload of kinds 0 and 1 decodes to raw-length bytes
//	                   holding one or more complete envelopes back to back,
//	                   a delta block rebuilds one envelope of raw length
//	                   from a base (delta.go)
//	trailer  32 bytes  SHA-256 of every byte before it
//
// Index file:
//
//	header   20 bytes  "TINESIX\x00", version uint32 (1), algo uint8,
//	                   3 zero bytes, count uint32
//	fan-out  256 × uint32: entries whose first digest byte is <= i
//	keys     count × 33 bytes: digest (32) then type code (1); strictly
//	                   increasing as byte strings, so lookup by full oid is a
//	                   fan-out range plus a binary search
//	offsets  count × uint64: offset of the entry's block in the pack
//	sizes    count × uint32: bytes of the whole block (header and payload)
//	starts   count × uint32: offset of the envelope in the decoded block
//	lengths  count × uint32: length of the envelope
//	crcs     count × uint32: CRC-32C (Castagnoli) of the whole block
//	pack     32 bytes: the pack's trailer checksum (binds index and pack)
//	trailer  32 bytes: SHA-256 of every byte of the index before it
//
// Type codes follow the enumeration order (SPEC §2.1): 1 annotation,
// 2 attestation, 3 blob, 4 event, 5 run. Block lengths live in the index, not
// in the block header, so a large object can be streamed into the pack
// without seeking back; every block is referenced by at least one entry and
// the blocks tile the pack between header and trailer, which Verify checks.
//
// Open lists the directory; a Store opens its packs on its first lookup,
// listing or count (so a process that reads only refs or loose objects
// maps no index). Reads check the index's header, length and fan-out when
// a Store opens a pack (the index is mapped, not read), each found
// entry's bounds, the block's CRC-32C before decompressing, and re-derive
// every object's oid from its envelope (DecodeEnvelopeAs), so corruption
// is an error naming the object. The index's trailer checksum and key
// order are verified once, before the index is believed about anything a
// read cannot check itself: an absence, a Has beyond a few proven by
// reading, an enumeration (index_trust.go). A damaged index is refused,
// never half used: the pack is skipped and named by every lookup that
// misses (damage.go).
//
// Writes: the pack and the index are written to temporary files in
// objects/pack/ and fsynced together; the pack is renamed to its name and the
// directory fsynced, then the index is renamed and the directory fsynced
// again. Readers only look for *.idx, so they never see a half pack, and a
// writer never leaves an index without its pack. A crash between the
// renames leaves the pack without its index and the index, fsynced, in its
// temporary file: RemoveGarbage completes that commit. A pack without an
// index is never deleted (its index may have been lost while its objects
// are needed); RebuildIndex rebuilds one. gc deletes an old pack's file
// before its index, so the only index without a pack is a gc's leftover,
// which indexes nothing and is deleted. A pack's name is its content, so
// a writer can commit a pack while a merge or gc removes a pack of the
// same name: objects/pack/lock orders the two (lock.go), commits holding
// its flock shared around their renames, removals exclusive around their
// unlinks, so neither ever sees the other's pair half done.
//
// Compression was measured on the development machine (2 cores, heavily
// shared while measuring, so CPU time per operation is the figure to
// trust) with ~1 KiB JSON event envelopes, zstd level SpeedFastest, no
// dictionary, encoders and decoders reused (bench_test.go:
// BenchmarkStoragePackWrite and BenchmarkStoragePackGet, 10k objects in
// a pack of 20k; Get includes the CRC, decompression, envelope decode and
// re-hash):
//
//	layout             size ratio  write cpu-µs/obj  random Get cpu-µs/obj
//	one frame/object   1.74        16.8              17–27
//	blocks of 4 KiB    2.78        10–12             21–24
//	blocks of 8 KiB    3.62        6.8–8.2           31–33
//	blocks of 16 KiB   4.15        6.5–7.2           48–55
//	blocks of 32 KiB   4.48        6.4–7.4           80–96
//
// On a quieter run the decompression alone cost 4–5 µs per lone frame, 7–9
// µs per 4 KiB block and ~10 µs per 8 KiB block, and SpeedDefault
// compressed only ~2% better at 2–3× the write cost. A frame per object
// compresses small JSON poorly (it cannot share the keys and oid prefixes
// of its neighbours) and costs the most to write; a block's random read
// cost grows with its size. 8 KiB blocks (the default) keep most of the
// ratio, write 2× faster than lone frames and cost under 2× their random
// read. Options.BlockSize selects another layout; readers handle every
// layout.
//
// Order of objects in a pack. A writer stores objects in the order they are
// added, and gc adds them in the order they were written (oldest pack
// first, each in its own pack order, merged with loose objects by file
// time; see plumbing's gc_write.go), never in oid order: objects are mostly
// read back in or near the order they were written, and then neighbouring
// reads share a block. Three things keep reads from decompressing a block
// more than once:
//
//   - Walk and VerifyEach read a whole pack in pack order, each block read
//     sequentially and decoded once (VerifyEach on every CPU, with the
//     trailer's SHA-256 computed over the same read);
//   - a Store keeps decoded multi-object blocks in a ring (cache.go: 2
//     MiB, doubling up to 96 MiB while blocks it evicted are decoded
//     again), shared by concurrent readers, so readers working through
//     neighbouring objects out of order (the workers of cat-object
//     --batch) decode each block about once, and random-order readers
//     (shuffled --batch) get a cache sized to the pack;
//   - a block is cached only after its CRC-32C matched and it decoded to
//     its declared length, and every object read from the cache is copied
//     out and re-hashed like any other, so the cache saves decompression,
//     never verification.
//
// Run objects are stored as deltas on other runs (delta.go): a Writer
// deltas each run on one of the last runs it added (write_delta.go), and
// an append's pack deltas its run on the predecessor's chain, possibly in
// another pack (write_append.go); small packs are merged as they pile up
// (merge.go). Another process may merge a pack away between its listing
// and its opening, or between a writer's commit and its opening: a merge
// commits its pack before it removes any, so the store lists the
// directory again and finds the objects there (reload.go, Store.install).
//
// Objects larger than LargeObject get a block of their own and are streamed through the encoder and decoder, so neither side holds more
// than the object itself and a zstd window.
package pack
