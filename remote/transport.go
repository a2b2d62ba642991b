package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/plumbing"
)

// Errors of every transport. Transports wrap them with %w naming the
// remote, ref or object; callers test with errors.Is.
var (
	// ErrConflict means a ref compare-and-swap lost: the remote ref did not
	// hold the expected value. The *ConflictError carrying it names both.
	ErrConflict = errors.New("remote ref changed")
	// ErrObjectFormat means the two sides use different object formats
	// (blake3 against sha256), or a received object does not hash to its
	// name. Nothing is transferred once it is detected.
	ErrObjectFormat = errors.New("object format mismatch")
	// ErrNotFound means the remote (its repository, tenant or bucket) or a
	// ref or object asked for does not exist there.
	ErrNotFound = errors.New("not found on the remote")
	// ErrRefused means the remote refused a request it understood: a
	// policy (promotions/*), a role, a limit or an invalid ref name.
	ErrRefused = errors.New("refused by the remote")
	// ErrUnsupportedURL means no registered transport handles a URL.
	ErrUnsupportedURL = errors.New("unsupported remote URL")
	// ErrIncomplete means received objects link to something that is
	// neither sent, stored nor declared as a shallow boundary.
	ErrIncomplete = errors.New("transfer is not link-closed")
	// ErrNotAsked means a fetch reply carries an object outside what the
	// fetch asked for (Scope); nothing of that reply is stored.
	ErrNotAsked = errors.New("object not asked for")
)

// Transport is one remote repository reached over some medium: another
// repository on disk (file), an OpenTine HTTP server (`tine serve`) or an
// S3 bucket. All three implement it and pass remotetest.Run.
//
// Object transfer is always "objects first, refs second": Push stores every
// object before it moves any ref, so a remote never holds a ref to a missing
// object whatever moment the pushing process dies at.
//
// Splitting: a TINEPACK3 frame holds at most objects.MaxPackObjects objects,
// so a transfer larger than that is several uploads or downloads. That is
// the transport's business, not the caller's: Push receives the whole
// dependency-ordered object list and uploads it in as many packs as its
// medium needs (each pack's prefix of the list is link-closed over what
// came before, so every pack installs on its own); Fetch hands the Sink
// batches in the same order. The file transport has no frames at all.
//
// A Transport is safe for concurrent use by one process; Close releases it.
type Transport interface {
	// Describe returns what the remote is: its object format, before any
	// object moves, so a blake3 repository never talks to a sha256 one.
	Describe(ctx context.Context) (*Description, error)
	// ListRefs returns every ref of the remote, names normalized (no
	// "refs/" prefix), sorted by name.
	ListRefs(ctx context.Context) ([]Ref, error)
	// Fetch stores in sink the objects of req's closure that sink lacks
	// (runs, their associations, depth-limited by req.Depth), in
	// dependency order.
	Fetch(ctx context.Context, req FetchRequest, sink Sink) (*FetchResult, error)
	// Push uploads req.Set.IDs, then moves each of req.Updates by
	// compare-and-swap, independently. An upload failure moves no ref and
	// is returned as the error; a ref that loses its CAS is reported in
	// PushResult.Refs (RefResult.Err wrapping ErrConflict), not as the
	// error, so the other refs still move.
	Push(ctx context.Context, req PushRequest) (*PushResult, error)
	// Close releases what the transport holds (connections, open
	// repositories).
	Close() error
}

// Prober is implemented by transports that can tell cheaply which objects
// the remote lacks (the file transport asks the other store; S3 reads its
// pack indexes). Push workflows use it to send only what is missing; a
// transport without it receives everything not provably on the remote,
// which is redundant but harmless (installing is idempotent).
type Prober interface {
	// Missing returns the ids of ids the remote does not hold, in order.
	Missing(ctx context.Context, ids []objects.OID) ([]objects.OID, error)
}

// Holder is implemented by transports that cannot answer Missing object
// by object cheaply but can tell in one request which of a few objects
// the remote stores (the HTTP client, through the protocol's negotiate).
// A push asks it about the associations it is about to send, which the
// closure of the remote's refs never covers, so a run whose evaluations
// the remote has is not sent them again.
type Holder interface {
	// Held returns the ids of ids the remote stores, in any order.
	Held(ctx context.Context, ids []objects.OID) ([]objects.OID, error)
}

// CurrentRunReader is implemented by transports that can tell which run
// the remote repository has current (`tine switch` there, git's HEAD):
// the file transport reads the repository's current-run file. OpenTine's
// HTTP protocol and the S3 layout carry nothing of the kind, so a clone
// over them chooses by itself (remotes.Clone).
type CurrentRunReader interface {
	// CurrentRun returns the ref the remote's current-run file names,
	// normalized but not necessarily existing, or "" when none is set.
	CurrentRun(ctx context.Context) (string, error)
}

// Description is what Describe reports about a remote.
type Description struct {
	// ObjectFormat is the remote's hash profile (blake3 or sha256).
	ObjectFormat objects.Algo `json:"object_format"`
	// Protocol names the medium: "file", "opentine-remote/1", "s3".
	Protocol string `json:"protocol"`
	// Exists is false when the remote is reachable but holds no
	// repository yet (an empty bucket prefix); a push creates it.
	Exists bool `json:"exists"`
}

// Ref is one remote ref.
type Ref struct {
	// Name is the normalized ref name, e.g. "heads/main".
	Name string `json:"name"`
	// ID is the object the ref names.
	ID objects.OID `json:"id"`
}

// FetchRequest says what Fetch should bring over.
type FetchRequest struct {
	// Wants are the roots: run (or other object) ids the remote holds,
	// usually ref values from ListRefs, or shallow-boundary ids to deepen.
	Wants []objects.OID
	// Haves are ids the receiver holds (for transports that must tell the
	// server, such as HTTP, which subtracts them literally). Transports
	// that can ask the Sink directly may ignore them.
	Haves []objects.OID
	// HaveRoots, when set, are ids whose whole link closure the receiver
	// holds (the values of its tracking refs, in a repository without a
	// shallow boundary). A transport whose server can subtract such
	// closures (HTTP under tine's extension) sends these instead of
	// Haves, which a server caps at 10,000 ids: more of a run than that
	// would be sent again on every fetch.
	HaveRoots []objects.OID
	// Depth limits the walk to Depth hops into events (OpenTine's rule,
	// plumbing.TransferOptions.Depth); NoDepth walks everything.
	Depth int
}

// NoDepth is the FetchRequest.Depth (and TransferOptions.Depth) of a full,
// unlimited walk.
const NoDepth = plumbing.NoDepth

// FetchResult is what one Fetch brought over.
type FetchResult struct {
	// Objects counts the objects handed to the sink (present ones
	// included when the medium sent them anyway).
	Objects int `json:"objects"`
	// Bytes counts the bytes read from the medium (frame or object bytes).
	Bytes int64 `json:"bytes"`
	// AssociationsOmitted counts runs whose associations the remote left
	// out to stay within its limits (OpenTine's
	// Opentine-Associations-Omitted header).
	AssociationsOmitted int `json:"associations_omitted"`
}

// PushRequest is one push: one upload of objects, then one CAS per ref.
type PushRequest struct {
	// Source reads the objects to send (the local repository's store).
	Source objects.Getter
	// Set holds the ids to upload in Set.IDs, link targets before the
	// objects linking to them (plumbing.TransferClosure's order; the zero
	// TransferSet with only IDs set is valid). Every link of an object in
	// the list is earlier in the list or already on the remote: a push
	// never creates a shallow boundary on the remote. Read objects with
	// Set.Object(ctx, Source, id) (or Batches), which uses the walk's
	// cache.
	Set *plumbing.TransferSet
	// Verified says every object of Set was read in this process through
	// a store's Get, which derived its oid from the stored bytes (Source
	// and the walk behind Set read a plumbing.Repo's store, directly or
	// through plumbing.TransferReader): a
	// receiver in this process (the file transport's ReadSink) then does
	// not hash them again. Leave it false for any other Getter.
	Verified bool
	// Updates are the ref moves, each checked and applied on its own.
	Updates []RefUpdate
}

// BlockSource is a PushRequest.Source that can also hand out its storage
// blocks as they are stored (pack.Store.RawBlocks; plumbing.TransferReader
// over a repository with storage packs is one): a transport whose
// receiver keeps such blocks sends them instead of the objects they hold.
type BlockSource interface {
	// RawBlocks returns the blocks holding nothing but objects of ids,
	// with covered[i] set for each ids[i] they hold.
	RawBlocks(ctx context.Context, ids []objects.OID) (blocks []pack.RawBlock, covered []bool, err error)
}

// RefUpdate is one compare-and-swap of a remote ref.
type RefUpdate struct {
	// Name is the remote ref, e.g. "heads/main" or "promotions/prod".
	Name string `json:"name"`
	// Old is the value the ref must hold now; the zero OID means it must
	// not exist.
	Old objects.OID `json:"old"`
	// New is the value to store.
	New objects.OID `json:"new"`
}

// RefResult is the outcome of one RefUpdate.
type RefResult struct {
	RefUpdate
	// Updated reports that the ref moved.
	Updated bool `json:"updated"`
	// Err is why it did not: a *ConflictError (ErrConflict), or an error
	// wrapping ErrRefused (policy, role, name).
	Err error `json:"-"`
}

// PushResult is what one Push did.
type PushResult struct {
	// Objects counts the objects uploaded.
	Objects int `json:"objects"`
	// Bytes counts the bytes written to the medium.
	Bytes int64 `json:"bytes"`
	// Packs counts the uploads (frames, S3 packs; the file transport's
	// store batches).
	Packs int `json:"packs"`
	// Refs has one entry per PushRequest.Updates entry, in order.
	Refs []RefResult `json:"refs"`
}

// ConflictError is a lost compare-and-swap of a remote ref: it held Actual,
// not Expected (zero means absent; Actual is zero too when the transport
// cannot learn the current value).
type ConflictError struct {
	Ref      string
	Expected objects.OID
	Actual   objects.OID
}

// Error names the ref and both values.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("remote ref %s changed: expected %s, found %s", e.Ref, spell(e.Expected), spell(e.Actual))
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// spell writes an oid for messages, "absent" for the zero OID.
func spell(id objects.OID) string {
	if id.IsZero() {
		return "absent"
	}
	return id.String()
}

// Sink receives fetched objects: the local repository (NewRepoSink), or in
// a server, a tenant's store.
type Sink interface {
	// Algo is the receiver's object format.
	Algo() objects.Algo
	// Has reports whether the receiver holds id.
	Has(ctx context.Context, id objects.OID) (bool, error)
	// Install stores one batch. Objects come link targets first; every
	// link of an object is in the batch before it, already stored, or in
	// boundary, which lists the links the sender left out (depth or its
	// own shallow boundary) and which the receiver records as shallow.
	// Objects are verified again (hash, links) before anything is stored.
	Install(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error
}

// ReadSink is a Sink that also takes objects this process read through a
// store's Get, which derives every oid from the stored bytes before it
// returns an object (the file transport reads the other repository that
// way), or decoded from a verified frame with objects.DecodeEnvelope,
// which derives it the same way (the HTTP transport's fetch). InstallRead verifies such a batch like Install except that it does
// not hash each object a second time; links, the run graph and annotation
// chains are verified all the same. A run may come unparsed
// (objects.GetUnparsed, which derives its oid all the same): the checks
// of its links and graph parse its body, so a body that is not canonical
// JSON is refused as it would be by a parsed read.
type ReadSink interface {
	Sink
	InstallRead(ctx context.Context, objs []*objects.Object, boundary []objects.OID) error
}

// RefGuard judges ref moves on the side that owns the policy: the file
// transport calls it with the destination repository before each CAS, and
// `tine serve` with the tenant's repository. porcelain/remotes provides the
// one that applies `tine promote`'s release policy to promotions/*.
type RefGuard interface {
	// CheckRef returns nil to let u proceed on repo (whose objects already
	// include everything pushed), or an error wrapping ErrRefused.
	CheckRef(ctx context.Context, repo *plumbing.Repo, u RefUpdate) error
}

// GuardRefusal is a RefGuard's refusal with the words a server may send
// its client: Public says why in one line and names nothing of the
// server's own files or configuration beyond the refusal (tine serve
// sends it to a tine client as the 403's message); Err is the whole cause,
// wrapping ErrRefused, for the server's log and for the file transport,
// which reports it in full.
type GuardRefusal struct {
	Public string
	Err    error
}

// Error is the whole cause.
func (e *GuardRefusal) Error() string { return e.Err.Error() }

// Unwrap returns the cause, so errors.Is(err, ErrRefused) holds.
func (e *GuardRefusal) Unwrap() error { return e.Err }
