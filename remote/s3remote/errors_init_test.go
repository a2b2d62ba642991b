package s3remote

import (
	"errors"
	"testing"

	"github.com/tinehq/tine/remote"
)

// TestNoSuchBucketIsNotFound: the missing-bucket error reads and matches as
// it did when fmt.Errorf wrapped remote.ErrNotFound.
func TestNoSuchBucketIsNotFound(t *testing.T) {
	if !errors.Is(errNoSuchBucket, remote.ErrNotFound) {
		t.Fatal("errNoSuchBucket is not remote.ErrNotFound")
	}
	if want := remote.ErrNotFound.Error() + ": no such bucket"; errNoSuchBucket.Error() != want {
		t.Fatalf("errNoSuchBucket reads %q, want %q", errNoSuchBucket, want)
	}
	if errors.Is(remote.ErrNotFound, errNoSuchBucket) {
		t.Fatal("remote.ErrNotFound matches errNoSuchBucket")
	}
}
