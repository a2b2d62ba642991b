// Package s3remote is the S3 transport: a tine remote kept in an
// S3-compatible bucket (s3://BUCKET[/PREFIX]), reached with the standard
// AWS environment variables (ConfigFromEnv) and moved with S3's
// conditional writes. It registers itself with package remote for the s3
// scheme. The bucket runs no tine code, so everything a server would do
// happens on the client: the fetch walk (plumbing.TransferClosure over
// the packs), verification (every object re-hashed when read), and the
// refusal of what the client cannot check (promotions/*).
//
// Layout under the prefix (every key relative to it):
//
//	tine-remote.json     {"layout":"tine-s3/1","object_format":"blake3"|"sha256"}:
//	                     makes the prefix a remote; written once, by the
//	                     first push, with If-None-Match: *
//	packs/pack-H.pack    one storage pack per push (objects/pack's format,
//	packs/pack-H.idx     named by its checksum H) and its index; immutable
//	refs/<name>          one small object per ref, "<oid>\n" (a ref file,
//	                     SPEC §2.4), name normalized (heads/main)
//	probe/<random>       the probe's scratch key, deleted after it
//
// A push uploads the objects the remote lacks (it reads every index to
// know) as one pack: the pack, then its index, then each ref moves.
// Readers only see packs that have an index, so a push killed at any
// moment leaves at worst an orphan pack file, invisible and harmless, and
// never a ref to a missing object; the next push needs no cleanup (an
// identical pack is found already there).
//
// A ref moves by compare-and-swap: read the ref object (value and ETag),
// compare the value with the expected one, then PUT the new value with
// If-Match: <ETag> (If-None-Match: * to create). 412 Precondition Failed
// means another writer won: a *remote.ConflictError naming both values.
// 409 ConditionalRequestConflict means the server is still settling a
// concurrent conditional write: retried with jittered exponential backoff
// (ErrUnavailable if it persists). Probe checks, before a remote is added,
// that the server enforces both conditions (exactly one of 32 racing
// writers wins each), since a server that ignores them would let
// concurrent pushers overwrite each other.
package s3remote
