// Package index is tine's derived query catalog: the lookups that must not
// scan the object store — runs by ref (and refs by run), attestations by
// target, annotations by target, evaluations by score name and value, and
// generic evidence tables (an input digest to the gate evidence events that
// were produced for it).
//
// The storage-pack file indexes (fan-out table, sorted oids, offsets) are not
// here: they live in package objects next to the pack reader
// (objects/pack/index.go). This package holds only the catalog, which is
// derived data: always rebuildable from objects and refs, never the source of
// truth and never read by fsck.
//
// # Where it lives
//
// A base file, objects/catalog/catalog, and the layers on it under
// objects/catalog/layers/, relative to the repository directory. SPEC
// §2.1 reserves indexes/ as always empty, so tine writes nothing there;
// OpenTine's reader and fsck ignore directories under objects/ that are
// not one of the five type directories, so the catalog is invisible to
// them (and tine's fsck walks only the type directories, so it never
// reads it). Every file is written to a temporary file, fsynced, renamed
// and its directory fsynced, so a reader never sees half of one.
//
// # Layers
//
// An update does not rewrite the base: it writes a layer holding what
// changed (the refs that moved, the new runs and the summaries of the
// events they add, the attestations and annotations added or gone), so a
// refresh after `tine record` onto a 30,000-event run writes a few
// hundred bytes, not the whole catalog. A new run is held as the first
// Prefix events of a run the catalog below already held (the run its ref
// named before, else its fork source: the longest shared prefix of their
// event lists, compared as oids) followed by its own events, so neither
// the layer nor the update costs the run's length. When one more layer
// would make more than MaxLayers, or the layers would outgrow an eighth
// of the base, the update writes the whole catalog as a new base instead
// (compaction), so a reader's layers stay bounded and each entry is
// rewritten once per compaction.
//
//	chain   "TINECLCH", uint32 version 5, the base file's 32-byte
//	        checksum, uint32 n (at most MaxLayers), n × 32-byte layer
//	        names (the SHA-256 of each layer's bytes: file
//	        <hex>.layer), SHA-256 of every byte before it
//	layer   magic "TINECLYR", version uv = 5, algo (string), refs (uv
//	        count, then per ref: name, oid or none for a deleted ref,
//	        sorted by name), events (uv count, then per event the fields
//	        of the base's event table below, but its parents as a uv
//	        count of oids; sorted by oid), runs (uv count, then per run:
//	        run oid, status, created_at, exact, fork and keyed events as
//	        in the base, then the oid of the run it extends (or none),
//	        uv prefix, uv count of own event oids and the oids, uv count
//	        of tip oids and the oids; sorted by oid), attestations added
//	        (as in the base) and gone (uv count, oids), annotations added
//	        and gone likewise, entries (8 bytes), SHA-256 checksum
//
// Reading applies the layers to the base in one pass and lays the result
// out exactly as a build from the objects would (events sorted by oid,
// the summaries of events no run lists dropped), so every query answers
// as from one file. A base whose checksum is not the chain's has no
// layers (a compaction died between writing the base and the chain); a
// layer that fails its name, checksum or checks, or names a run or event
// the catalog below lacks, or that the chain names but is missing after
// the chain is read again, makes the catalog corrupt: it is rebuilt.
//
// Writers (an update, a compaction, a rebuild) hold an flock on
// layers/lock, check that the base and chain are those they loaded
// (else load again), write the layer or base, then the chain, then
// delete the layers the chain does not name. Readers take no lock: a
// layer a compaction deleted after they read the chain makes them read
// the chain again.
//
// # Format of the base file (version 5)
//
// Integers are unsigned LEB128 varints (uv) unless noted; a string is uv
// length then bytes (at most MaxStringBytes); an oid is one type byte
// (0 none, 1 blob, 2 event, 3 run, 4 attestation, 5 annotation) followed,
// unless 0, by its 32 digest bytes (the hash profile is the header's);
// a float is 8 bytes, IEEE 754 bits little-endian, finite.
//
//	magic      "TINECTLG"
//	version    uv = 5
//	algo       string ("blake3" or "sha256": the repository's hash)
//	rules      uv count, then per rule: table, kind, path (strings)
//	refs       uv count, then per ref: name, target oid — every ref of the
//	           repository when the catalog was built, sorted by name
//	events     uv count, then per event: event oid, flag byte missing
//	           (1: listed by a run, not stored; nothing follows), else
//	           kind, label (strings), time (flag byte, float if 1), cost,
//	           duration, tokens (floats), exit code (flag byte, signed
//	           varint if 1), score (flag byte, float if 1), uv count of
//	           params, then per param: name, value (strings, sorted by
//	           name), argv (string), model, tool, error (strings), uv
//	           count of argv words (at most MaxArgvWords), then each word
//	           (string), exact (flag byte), uv count of parents, then per
//	           parent its position in this table (uv) — the summaries of
//	           every event of the runs below, sorted by oid (EventSummary)
//	runs       uv count, then per run: run oid, status (string),
//	           created_at (flag byte, float if 1), uv count of events,
//	           then per event its position in the event table (uv, in
//	           the run's order), uv count of tips, then per tip its
//	           position (uv), exact (flag byte), fork (flag byte: the
//	           run has forked_from; if 1, a flag byte held whole, and if
//	           that is 1 the source run and fork event oids, each
//	           possibly none, and the reason string), uv count of keyed
//	           events,
//	           then per keyed event: event oid, table, key — one entry per
//	           distinct run-typed ref target, sorted by oid
//	attestations uv count, then per attestation: oid, target oid, signer,
//	           claim kind, uv count of (name, value) string fields, uv count
//	           of (name, float) scores, flag byte signed, signed_at
//	           (string) — every attestation in the store, sorted by oid
//	annotations uv count, then per annotation: oid, target oid (or none),
//	           sorted by oid
//	entries    8 bytes little-endian: refs+events+runs+attestations+
//	           annotations
//	checksum   32 bytes: SHA-256 of every byte before it
//
// # Trust and staleness
//
// A catalog is never trusted over objects. Every oid a query returns names
// an object the caller reads through an objects.Getter (which re-hashes it)
// before acting on it; an oid that has since been pruned reads as not found
// and is a cache miss, never a fact. The one exception is `tine log --all`,
// which prints the event summaries of exact entries as they are: they were
// taken from verified objects, the file is checksummed, and the refs it
// covers are checked against the current refs on every load. On every load the file is checked: a
// missing, truncated, oversized, checksum-failing or version-, hash- or
// rule-mismatched file is rebuilt from scratch; a sound file whose ref
// snapshot differs from the current refs, or whose attestation or
// annotation set differs from the store's, is updated incrementally (runs
// and attestations already indexed are reused; only new ones are read).
// Decoding bounds every count by the bytes that remain before allocating,
// so a corrupt file never panics or exhausts memory.
//
// Version 3 added what `tine log --all` prints (model, tool, error, argv
// words per event, tips per run) and the exact flags: an event's is set
// when every field log shows is held whole and reads as the porcelain
// reads the object (nothing cut at MaxStringBytes, MaxLabelBytes or
// MaxArgvWords; parents all positioned); a run's when its object was read
// and its status, event list and tips read as the porcelain reads them.
// Log reads from the objects what is not exact. Version 4 added each
// run's forked_from as the porcelain reads it (`tine graph --all` draws
// forks without reading every run object); it is held whole unless an oid
// in it is of another hash or type, or its reason is over MaxStringBytes,
// and the graph then reads that run.
//
// Version 5 added the layers; the base file itself is as in version 4.
// A version 1 to 4 file is rebuilt, never read as this one.
//
// Run summaries: a run's row in `tine runs` (RunSummary) is folded from
// its events' summaries, which an update never re-reads: a new run's
// events already in the table are reused, so an append or a fork reads
// only the events it adds.
//
// # The search index
//
// objects/catalog/search and objects/catalog/search-recent are the
// inverted index of `tine search` (search_file.go has the format;
// search.go how the two files are updated and merged; search_text.go the
// fields and the tokenization). They index the catalog's events, are
// brought up to date by Index.Search, never by the writers' Update, and
// follow the catalog's rules: derived, replaced atomically, rebuilt when
// they fail a check, and every hit re-checked against the objects.
// # The history index
//
// objects/catalog/history/ holds the history index, git's commit-graph
// for runs: what log, diff and show need of a run without reading its run
// object (a snapshot listing every event: 2.2 MB of JSON at 30,000
// events, re-hashed and parsed on every read). The catalog above cannot
// serve it: it is decoded whole on every load.
//
// Per run: its status, tips and event count, and its event list stored
// structurally, so appends and forks share it: a run's list is the first
// Prefix events of a base run followed by its own events. An append is
// indexed with the run it extends as base (Prefix = that run's length),
// a fork with the run it was forked from; only the own events are new
// data. Each own event holds its oid, its tool-path step (what diff
// prints) and the run's cumulative cost, duration and tokens and latest
// score up to it, summed in the run's order, so a run's totals are its
// last record and diff sums nothing it does not print. The newest N
// events of a run are read by walking its records from the tail, through
// bases only as far as N needs.
//
// Files. A chain file, replaced atomically, names the layers in order,
// oldest first. Layers are immutable and named by the SHA-256 of their
// bytes; a new layer holds only the runs added by one write; then, while
// the newest layer is at least half the size of the one before, the two
// are merged into one, so a chain holds about log2 of the index's size
// and each record is rewritten O(log n) times. Writers hold an flock on
// lock (a crashed writer's lock dies with it), re-read the chain, write
// the layer, write the chain and delete the layers no chain names.
// Readers take no lock; a layer a merge deleted after they read the chain
// makes them read the chain again (a mapped layer stays readable).
//
//	chain   "TINEHCHN", uint32 version 1, 8-byte hash name (zero padded),
//	        uint32 n, n × 32-byte layer names, uint32 CRC-32C of the rest
//	layer   "TINEHIST", uint32 version 1, 8-byte hash name,
//	        uint32 runs, steps, own events, string bytes, metadata bytes,
//	        fan-out: 256 × uint32 (runs whose first digest byte ≤ i),
//	        runs: sorted by run digest, 96 bytes each — digest, base
//	        digest (zero for none), uint32 prefix, own count, depth,
//	        metadata length, uint64 first own event, metadata offset,
//	        tails: per run (last event digest, run digest), sorted — how
//	        an append's predecessor is found from the append's events,
//	        own events: 72 bytes each — event digest, uint32 step number,
//	        uint32 flags (1: a score so far), float64 cumulative cost,
//	        duration, tokens, latest score,
//	        steps: per step string uint32 offset, length into the strings,
//	        strings, metadata (per run: uvarint status length, status,
//	        uvarint tip count, 32-byte tip digests),
//	        block sums: a uint32 CRC-32C per 1,024 own-event records,
//	        uint32 CRC-32C of every byte before it but the own events
//
// All integers are little-endian. When a layer is opened everything but
// its own-event records is checked (size, CRC-32C, magic, version, hash,
// every section's size against its count, fan-out and sort order): that
// is O(runs), not O(events). A block of own-event records is checked
// against its sum the first time it is read, so log -n 20 checks (and
// pages in) one or two blocks of a 30,000-event run, not 2 MB. Every
// record is bounds-checked when read, so a damaged file is
// ErrHistoryCorrupt, never a panic or a wrong offset.
//
// Trust. As git trusts its commit-graph for parents and generation
// numbers, tine trusts the history index for a stored run's event list,
// status, tips, tool-path steps and sums: these are facts about immutable
// objects (a run oid names one payload forever), recorded from objects
// that were read and verified when the run was indexed. Every event log
// prints and every divergent event diff prints is read again through the
// object store (re-hashed); a run named by oid rather than by a ref must
// still be stored. A run with an event not stored here (a shallow
// boundary) is not indexed: its summary would change when the event is
// fetched. A damaged index is reset (emptied) by the reader that meets it
// and refilled as runs are read; `tine index status --verify` checks every
// ref'd run the index holds against its run object and events, and `tine
// index rebuild` rebuilds it from the objects. fsck never reads it.
package index
