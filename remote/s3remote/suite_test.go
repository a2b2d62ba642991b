package s3remote

import (
	"context"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestTransportSuite runs the shared transport suite over S3: every case
// gets a fresh bucket on one real versitygw, reached through remote.Open
// with the AWS environment variables, and the remote's own fsck is
// Verify.
func TestTransportSuite(t *testing.T) {
	srv := vgwtest.Start(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	remotetest.Run(t, func(t *testing.T, a objects.Algo) remotetest.Remote {
		bucket := srv.Bucket(t)
		url := "s3://" + bucket + "/team/runs"
		opt := remote.Options{Endpoint: srv.Endpoint}
		return remotetest.Remote{URL: url, Options: opt, Fsck: func(t testing.TB) {
			t.Helper()
			tr, err := remote.Open(context.Background(), url, opt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.(*Transport).Verify(context.Background()); err != nil {
				t.Fatalf("verify the S3 remote: %v", err)
			}
		}}
	})
}
