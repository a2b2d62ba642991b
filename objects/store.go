package objects

import (
	"context"
	"errors"
	"fmt"
	"path"
)

// Errors returned by object stores. They are always wrapped with the name
// of the object concerned; test for them with errors.Is.
var (
	// ErrNotFound reports that a store does not hold the object.
	ErrNotFound = errors.New("object not found")
	// ErrAlgoMismatch reports an object whose oid uses a hash profile other
	// than the store's: a sha256 repository never holds a blake3 object.
	ErrAlgoMismatch = errors.New("object hash profile differs from the store's")
	// ErrObjectTooLarge reports an object file over MaxLooseObjectSize.
	ErrObjectTooLarge = errors.New("object too large")
	// ErrUnsafeFile reports an object path that is a symlink, a hard-linked
	// file or not a regular file (SPEC §2.1 path confinement).
	ErrUnsafeFile = errors.New("object path is not a plain regular file")
)

// MaxLooseObjectSize bounds the stored size (header, LF and body) of one
// object, loose or packed: 2 GiB, so a 1 GiB file and its header fit, and a
// storage pack's 32-bit block lengths always hold one object. Get reads a
// whole object into memory, so larger objects are refused before any
// allocation rather than exhausting memory; OpenBlob streams instead.
const MaxLooseObjectSize = 2 << 30

// Getter reads objects. Every read re-derives the oid from the stored bytes,
// so corruption is reported as an error naming the object (a *FormatError,
// envelope.oid-mismatch when the bytes decode but hash to another name),
// never returned as data. An absent object is an error wrapping ErrNotFound.
type Getter interface {
	Get(ctx context.Context, id OID) (*Object, error)
}

// Store is a content-addressed object store of one hash profile.
type Store interface {
	Getter
	// Algo returns the store's hash profile.
	Algo() Algo
	// Has reports whether the store holds an object under id. It checks
	// existence only; it does not verify content (fsck does).
	Has(ctx context.Context, id OID) (bool, error)
	// Put stores a valid object. Storing an object that is already present
	// is success. The object is durable when Put returns nil.
	Put(ctx context.Context, o *Object) error
	// List calls fn for every object id in enumeration order: by type, then
	// by hex digest (SPEC §2.1: sorted at every level). It stops at and
	// returns the first error fn returns.
	List(ctx context.Context, fn func(OID) error) error
}

// UnparsedGetter is implemented by stores that can read an object without
// parsing its json body: GetUnparsed verifies the oid as Get does and
// returns the object with its Value unparsed (DecodeEnvelopeUnparsedAs).
type UnparsedGetter interface {
	GetUnparsed(ctx context.Context, id OID) (*Object, error)
}

// GetUnparsed reads id through g, unparsed where g is an UnparsedGetter,
// else parsed by g.Get. Either way the oid is verified.
func GetUnparsed(ctx context.Context, g Getter, id OID) (*Object, error) {
	if u, ok := g.(UnparsedGetter); ok {
		return u.GetUnparsed(ctx, id)
	}
	return g.Get(ctx, id)
}

// BatchPutter is implemented by stores that can store many objects for the
// price of one round of syncs. PutBatch has the semantics of calling Put on
// each object, except that on error an unspecified subset may have been
// stored.
type BatchPutter interface {
	PutBatch(ctx context.Context, objs []*Object) error
}

// PutAll stores objs in s, in one batch when s is a BatchPutter.
func PutAll(ctx context.Context, s Store, objs []*Object) error {
	if b, ok := s.(BatchPutter); ok {
		return b.PutBatch(ctx, objs)
	}
	for _, o := range objs {
		if err := s.Put(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// LoosePath returns the slash-separated path of a loose object relative to
// the repository root: objects/<type>/<hex[0:2]>/<hex[2:64]> (SPEC §2.1,
// op object.path). An id that is not a valid oid gives path.invalid-oid.
func LoosePath(id OID) (string, error) {
	if !id.Type.Valid() || !id.Algo.Valid() {
		return "", Errorf(ReasonPathInvalidOid, "not an oid: type %.40q, hash %.40q", id.Type, id.Algo)
	}
	h := id.Hex()
	return path.Join("objects", string(id.Type), h[:2], h[2:]), nil
}

// LoosePathString parses s as an oid and returns LoosePath of it. A string
// that is not an oid, uppercase hex included, gives path.invalid-oid: a path
// is only ever built from a parsed oid, never by slicing the input.
func LoosePathString(s string) (string, error) {
	id, err := ParseOID(s)
	if err != nil {
		return "", Errorf(ReasonPathInvalidOid, "not an oid: %.80q", s)
	}
	return LoosePath(id)
}

// CheckPut validates an object before a store accepts it: the oid must be
// complete, of the store's profile, and agree with the object's type.
func CheckPut(a Algo, o *Object) error {
	if o == nil {
		return errors.New("put: nil object")
	}
	if o.ID.Algo != a {
		return fmt.Errorf("object %s: %w (store uses %s)", o.ID, ErrAlgoMismatch, a)
	}
	if !o.ID.Type.Valid() || o.Type != o.ID.Type {
		return fmt.Errorf("object %s: type %q does not match its oid", o.ID, o.Type)
	}
	return nil
}

// NotFound returns the error for an absent object: it names id and wraps
// ErrNotFound. Its text is built only when asked for: a lookup that
// misses one store and finds the object in the next (a loose miss before
// a pack hit, on every read of a packed object) never formats it.
func NotFound(id OID) error { return &notFoundError{id: id} }

// notFoundError is NotFound's error: "object <id>: object not found".
type notFoundError struct{ id OID }

// Error names the object and the absence.
func (e *notFoundError) Error() string { return "object " + e.id.String() + ": " + ErrNotFound.Error() }

// Unwrap returns ErrNotFound.
func (e *notFoundError) Unwrap() error { return ErrNotFound }
