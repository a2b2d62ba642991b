package s3remote

import (
	"errors"

	"github.com/tinehq/tine/remote"
)

// Sentinel errors of package s3remote.
var (
	// ErrBadURL reports a remote URL that is not s3://BUCKET[/PREFIX].
	ErrBadURL = errors.New("invalid s3 remote URL")
	// ErrBadEndpoint reports an endpoint URL that is refused.
	ErrBadEndpoint = errors.New("invalid s3 endpoint")
	// ErrNoCredentials reports that no access key is configured.
	ErrNoCredentials = errors.New("no S3 credentials")
	// ErrBadCredentials reports credentials (or a region) that cannot be
	// sent in a request header.
	ErrBadCredentials = errors.New("invalid S3 credentials")
	// ErrNoConditionalWrites reports a server that accepted conflicting
	// conditional writes: refs cannot be moved safely there.
	ErrNoConditionalWrites = errors.New("this server does not enforce conditional writes")
	// ErrRemoteCorrupt reports remote content that fails verification: a
	// malformed marker, ref object or pack index, or a ref to an object no
	// pack holds.
	ErrRemoteCorrupt = errors.New("remote content is corrupt")
	// ErrTooLarge reports a remote object larger than its kind allows.
	ErrTooLarge = errors.New("remote object too large")
	// ErrUnavailable reports a conditional write the server kept answering
	// 409 ConditionalRequestConflict to after every retry.
	ErrUnavailable = errors.New("the server kept reporting a conflicting conditional write")
)

// errNoSuchKey reports a missing key (404); internal, mapped by callers.
var errNoSuchKey = errors.New("no such key")

// errNoSuchBucket reports a missing bucket; it is remote.ErrNotFound. A
// value of its own type rather than fmt.Errorf: a package-level Errorf
// runs fmt in every tine process at start.
var errNoSuchBucket error = notFound("no such bucket")

// notFound is a remote.ErrNotFound with a detail.
type notFound string

func (e notFound) Error() string { return remote.ErrNotFound.Error() + ": " + string(e) }
func (e notFound) Unwrap() error { return remote.ErrNotFound }

// errPrecondition reports 412 Precondition Failed: the condition of a
// conditional write did not hold.
var errPrecondition = errors.New("precondition failed")
