package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestS3Scripts runs the testdata/script-s3 sessions: S3 remotes against a
// real S3 server (versitygw, started per session by `s3server`). Without
// the server's binary they skip, except under CI=true, where they fail.
func TestS3Scripts(t *testing.T) {
	bin := vgwtest.Binary(t)
	testscript.Run(t, scriptParams("script-s3", map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"s3server":  func(ts *testscript.TestScript, neg bool, args []string) { cmdS3Server(ts, neg, args, bin) },
		"s3ignorer": cmdS3Ignorer,
	}))
}

// cmdS3Server is `s3server BUCKET...`: it starts versitygw on 127.0.0.1
// for the rest of the session, creates the buckets, and sets the AWS
// credentials and region, and S3_ENDPOINT to the server's URL.
func cmdS3Server(ts *testscript.TestScript, neg bool, args []string, bin string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: s3server BUCKET...")
	}
	root := ts.MkAbs("s3root")
	ts.Check(os.Mkdir(root, 0o755))
	srv, err := vgwtest.StartProcess(bin, root)
	ts.Check(err)
	ts.Defer(srv.Stop)
	for _, b := range args {
		ts.Check(srv.CreateBucket(context.Background(), b))
	}
	ts.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	ts.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	ts.Setenv("AWS_REGION", vgwtest.Region)
	ts.Setenv("S3_ENDPOINT", srv.Endpoint)
}

// cmdS3Ignorer is `s3ignorer`: it starts an HTTP server on 127.0.0.1 that
// answers every PUT with 200 whatever its If-None-Match or If-Match (a
// store without conditional writes) and sets S3_IGNORER to its URL.
func cmdS3Ignorer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: s3ignorer")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
			return
		}
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("S3_IGNORER", srv.URL)
}
