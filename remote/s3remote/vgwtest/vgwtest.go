// Package vgwtest starts a real S3 server for tests: versitygw (Apache-2.0)
// with its posix backend on a temporary directory, listening on 127.0.0.1
// at a free port, stopped when the test ends. The binary is built by
// .ci/run from the tools module (tools/go.mod pins its version) and named
// by TINE_TEST_VERSITYGW. Without it a test skips, except under CI=true,
// where it fails: CI must never pass by skipping the S3 tests.
package vgwtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/tinehq/tine/remote/s3remote/internal/s3client"
)

// EnvBinary names the environment variable holding the versitygw binary.
const EnvBinary = "TINE_TEST_VERSITYGW"

// Region is the signing region the tests use (versitygw accepts any).
const Region = "us-east-1"

// startTimeout bounds a server start on a loaded 2-core machine.
const startTimeout = 2 * time.Minute

// Server is one running versitygw.
type Server struct {
	// Endpoint is its base URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are its root credentials.
	AccessKey, SecretKey string
	// Root is the posix backend's directory (buckets are its
	// subdirectories).
	Root   string
	cmd    *exec.Cmd
	exited chan error
	log    *syncBuffer
}

// Binary returns the versitygw binary, skipping t when there is none,
// or failing it under CI=true.
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(EnvBinary)
	if bin != "" {
		if fi, err := os.Stat(bin); err == nil && !fi.IsDir() {
			return bin
		}
	}
	msg := fmt.Sprintf("no versitygw binary (%s=%q): bash .ci/run builds it; by hand: (cd tools && go build -o DIR/versitygw github.com/versity/versitygw/cmd/versitygw) and export %s=DIR/versitygw", EnvBinary, bin, EnvBinary)
	if os.Getenv("CI") != "" && os.Getenv("CI") != "false" {
		t.Fatal("CI requires the real S3 server: " + msg)
	}
	t.Skip("S3 tests skipped: " + msg)
	return ""
}

// Start starts a server for t and stops it when t ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	root := t.TempDir()
	s, err := StartProcess(bin, root)
	if err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// StartProcess runs versitygw binary bin on root (an empty directory) at a
// free loopback port and waits until it answers; Stop ends it. A start
// that fails is tried again (another process may take the free port
// between the check and the bind).
func StartProcess(bin, root string) (*Server, error) {
	var last error
	for try := 0; try < 3; try++ {
		s, err := start(bin, root)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

// start runs versitygw on a free loopback port and waits until it answers.
func start(bin, root string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + port, AccessKey: "tinetest" + randHex(4),
		SecretKey: randHex(16), Root: root, log: &syncBuffer{}}
	s.cmd = exec.Command(bin, "--port", "127.0.0.1:"+port, "posix", root)
	s.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	s.exited = exited
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("exited before answering (%v): %s", err, s.log.String())
		default:
		}
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.cmd.Process.Kill()
			<-exited
			return nil, fmt.Errorf("no answer within %s: %v: %s", startTimeout, err, s.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the server and waits for it to exit.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	<-s.exited
}

// Log returns what the server printed.
func (s *Server) Log() string { return s.log.String() }

// Client returns an S3 client for the server (the S3 remote's own).
func (s *Server) Client() *s3client.Client {
	return s3client.New(s3client.Options{Endpoint: s.Endpoint, Region: Region,
		Credentials: aws.Credentials{AccessKeyID: s.AccessKey, SecretAccessKey: s.SecretKey}})
}

// Bucket creates a fresh bucket and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := "tine-" + randHex(6)
	if err := s.CreateBucket(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	return name
}

// CreateBucket creates bucket name.
func (s *Server) CreateBucket(ctx context.Context, name string) error {
	if err := s.Client().CreateBucket(ctx, name); err != nil {
		return fmt.Errorf("create bucket %s: %w\n%s", name, err, s.Log())
	}
	return nil
}

// Env returns the AWS environment variables that point a tine process at
// the server (to append to os.Environ()).
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + Region, "AWS_ENDPOINT_URL=" + s.Endpoint}
}

// Getenv reads Env, falling back to nothing (not the process
// environment), for s3remote.ConfigFromEnv.
func (s *Server) Getenv(key string) string {
	for _, kv := range s.Env() {
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v
		}
	}
	return ""
}

// freePort returns a loopback TCP port nothing listens on right now.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// randHex returns n random bytes in hex.
func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// syncBuffer is a bytes.Buffer safe for the server's two output streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
