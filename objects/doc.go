// Package objects is OpenTine's v3 object format (SPEC Parts 0–4) with a
// choice of hash: what an object is, how its bytes look, which rules it must
// satisfy, and the Store contract every object store implements. It hashes,
// parses and verifies; it reads and writes no repository files itself. The
// stores live below it and import it, never the other way round:
//
//	objects/loose     the SPEC's loose files, objects/<type>/<2 hex>/<62 hex>
//	objects/pack      tine's storage packs, objects/pack/pack-H.{pack,idx}
//	objects/combined  the repository's store: loose in front of packs
//	objects/memory    a store in memory (tests, staging an artifact)
//	objects/objectstest  the suite every store passes
//
// The concerns, by file group:
//
//   - Ids and hash profiles (oid.go): TYPE:ALGO:<64 hex>, the preimage
//     TYPE 0x00 decimal(schema) 0x00 body (SPEC §1.3), hashed with SHA-256
//     (OpenTine's profile) or BLAKE3-256 (tine's default); a repository has
//     one profile.
//   - JSON (value.go, json_parse.go, json_number.go, json_path.go,
//     json_input.go, shape.go, text.go): the strict parser (duplicate keys,
//     lone surrogates, integer versus float literals, depth and size bounds
//     checked by a byte scan before any allocation; SPEC §0.2, §0.5).
//   - Canonical JSON (canon_v3.go, canon_v2.go): the v3 form every json
//     body is stored in, and the v2 form signatures cover (SPEC §0.3).
//   - Envelope (envelope.go, object.go): the stored bytes of every object,
//     loose or packed: a canonical header {"encoding":...,"schema":N,
//     "type":...}, LF, then the body (raw bytes for a blob, canonical v3
//     JSON otherwise; SPEC §1.2). DecodeEnvelopeAs re-derives the oid, so
//     every read verifies.
//   - Payload and link rules (links.go, metrics.go, graph.go, chain.go,
//     load.go): typed links and their structural rules, event metrics, the
//     run graph, the annotation chain; Validate runs them all (SPEC §1.5).
//   - Errors (reason.go): FormatError carries OpenTine's stable reason codes.
//   - The Store contract (store.go, store_files.go, list_types.go): Getter,
//     Store, BatchPutter, TypeLister (a listing of chosen types that never
//     lists the others), the sentinel errors, the loose path of an oid, and the
//     file conventions the on-disk stores share (the .tmp- prefix of
//     temporary files, read-only modes, path confinement).
//   - TINEPACK3 (tinepack*.go): the transfer frame of SPEC §2.8, the
//     interchange format of tine pack/unpack and OpenTine peers: a magic, the
//     manifest's SHA-256, and a zlib stream of the canonical JSON manifest
//     (base64 envelopes and shallow boundary oids); the closure of a frame
//     and its installation into a Store.
//   - Artifacts (artifact*.go): the .tine document (SPEC Part 3): reading
//     format versions 1 and 2, its integrity block and the verdicts of the
//     reference reader.
//   - Signatures (sig*.go): the schemes tine-sig/1, tine-sig/2 (artifacts)
//     and tine-attest/1 (attestations), their signed messages, key files,
//     signing and verification (SPEC Part 4).
//   - Redaction (redact*.go): secrets replaced by "[REDACTED]" in values,
//     environments, URLs, assignments and streamed blobs, before anything is
//     hashed (SPEC §1.7).
//
// On-disk formats this package owns (the files are written by the packages
// that hold the paths): the envelope, byte for byte, in every loose object
// file, every storage-pack block and every TINEPACK3 entry; the TINEPACK3
// frame (tine pack --store writes packs/<64 hex>.pack); the .tine artifact
// document; and the signature blocks inside artifacts and attestations.
// The storage pack and index formats belong to objects/pack, the loose
// layout to objects/loose.
package objects
