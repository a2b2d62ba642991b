package s3remote

import (
	"context"
	"crypto/rand"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// The child push of TestPushKilled reads its job from these variables.
const (
	envChild    = "TINE_S3_TEST_CHILD"
	envRepo     = "TINE_S3_TEST_REPO"
	envRun      = "TINE_S3_TEST_RUN"
	envBucket   = "TINE_S3_TEST_BUCKET"
	envEndpoint = "TINE_S3_TEST_ENDPOINT"
)

// TestPushChild is the pushing process of TestPushKilled; it does nothing
// in a normal test run.
func TestPushChild(t *testing.T) {
	if os.Getenv(envChild) != "1" {
		t.Skip("the child process of TestPushKilled")
	}
	ctx := context.Background()
	r, err := plumbing.Open(os.Getenv(envRepo))
	if err != nil {
		t.Fatal(err)
	}
	run, err := objects.ParseOID(os.Getenv(envRun))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ConfigFromEnv("s3://"+os.Getenv(envBucket)+"/k", os.Getenv(envEndpoint), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pushRun(ctx, New(cfg, remote.Options{}), r, "heads/main", objects.OID{}, run); err != nil {
		t.Fatal(err)
	}
	t.Fatal("the push finished: it should have been killed")
}

// killProxy forwards to versitygw and, on the first PUT whose key ends in
// suffix, stops: for a pack after forwarding its first 64 KiB (the server
// holds a half-received object), for anything else before forwarding a
// byte. It reports the stop on stopped and then waits for release.
type killProxy struct {
	*httptest.Server
	stopped chan struct{}
	release chan struct{}
	once    sync.Once
}

func newKillProxy(t *testing.T, srv *vgwtest.Server, suffix string) *killProxy {
	p := &killProxy{stopped: make(chan struct{}), release: make(chan struct{})}
	rp := vgwProxy(t, srv)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the cut upload's error is the point
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit := false
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, suffix) {
			p.once.Do(func() { hit = true })
		}
		switch {
		case hit && suffix == ".pack":
			r.Body = &gatedBody{rc: r.Body, left: 64 << 10, p: p}
		case hit:
			close(p.stopped)
			<-p.release
			return // never forwarded: the pusher is dead
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.once.Do(func() {}); p.Close() })
	return p
}

// gatedBody passes left bytes, then reports the stop and blocks until
// released; what it reads after that comes from a killed client.
type gatedBody struct {
	rc      io.ReadCloser
	left    int
	p       *killProxy
	blocked bool
}

func (g *gatedBody) Read(b []byte) (int, error) {
	if g.left <= 0 && !g.blocked {
		g.blocked = true
		close(g.p.stopped)
		<-g.p.release
	}
	if !g.blocked && len(b) > g.left {
		b = b[:g.left]
	}
	n, err := g.rc.Read(b)
	g.left -= n
	return n, err
}

func (g *gatedBody) Close() error { return g.rc.Close() }

// TestPushKilled kills (SIGKILL) a pushing process at three moments: in
// the middle of the pack's upload, after the pack but before its index,
// and after the index but before the ref. Each time the remote has no ref
// to a missing object and verifies clean, and the next push, with no
// cleanup, succeeds and fetches whole.
func TestPushKilled(t *testing.T) {
	srv := vgwtest.Start(t)
	for _, stage := range []string{".pack", ".idx", "/refs/heads/main"} {
		t.Run(strings.Trim(stage, "./"), func(t *testing.T) {
			ctx := context.Background()
			bucket := srv.Bucket(t)
			r := newRepo(t, objects.BLAKE3)
			// 24 MiB that do not compress, so the pack's upload is still
			// in flight, beyond every socket buffer, when the pusher dies.
			big := make([]byte, 24<<20)
			rand.Read(big)
			blob := put(t, r, objects.NewBlob(r.Algo(), big))
			ev := put(t, r, jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"tool","output_blob":"`+blob.String()+`","parent_ids":[]}`))
			run := put(t, r, jsonObject(t, r.Algo(), objects.TypeRun, `{"events":["`+ev.String()+`"],"roots":["`+ev.String()+`"],"tips":["`+ev.String()+`"]}`))

			proxy := newKillProxy(t, srv, stage)
			cmd := exec.Command(os.Args[0], "-test.run=^TestPushChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), srv.Env()...)
			cmd.Env = append(cmd.Env, envChild+"=1", envRepo+"="+r.Root(), envRun+"="+run.String(),
				envBucket+"="+bucket, envEndpoint+"="+proxy.URL)
			out := &strings.Builder{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-proxy.stopped:
			case err := <-exited:
				t.Fatalf("the push ended before reaching %s: %v\n%s", stage, err, out)
			case <-time.After(5 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the push never reached %s\n%s", stage, out)
			}
			cmd.Process.Kill() // SIGKILL
			<-exited
			close(proxy.release)

			tr := newRemote(t, srv, bucket, "k")
			// The proxy may still be passing the tail of a dead upload on;
			// the server must drop it, which it has done once the proxy's
			// handler returned. Closing the proxy waits for that.
			proxy.Close()
			if got, err := tr.ListRefs(ctx); err != nil || len(got) != 0 {
				t.Fatalf("refs after the kill: %v, %v", got, err)
			}
			if _, err := tr.Verify(ctx); err != nil {
				t.Fatalf("verify after the kill: %v", err)
			}
			pi, err := tr.loadPacks(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if visible := len(pi.idx) == 1; visible != (stage == "/refs/heads/main") {
				t.Fatalf("packs visible after a kill at %s: %d", stage, len(pi.idx))
			}
			var keys []string
			tr.b.list(ctx, packsDir, func(rel, _ string, size int64) error {
				keys = append(keys, rel)
				return nil
			})
			// The cut upload left nothing (an S3 PUT is all or nothing); a
			// pack whose index never came is an orphan, invisible above.
			if want := map[string]int{".pack": 0, ".idx": 1, "/refs/heads/main": 2}[stage]; len(keys) != want {
				t.Fatalf("pack keys after a kill at %s: %v, want %d", stage, keys, want)
			}

			res, err := pushRun(ctx, tr, r, "heads/main", objects.OID{}, run)
			if err != nil || !res.Refs[0].Updated {
				t.Fatalf("push after the kill: %+v, %v", res, err)
			}
			if _, err := tr.Verify(ctx); err != nil {
				t.Fatalf("verify after the second push: %v", err)
			}
			sink := newMemSink(objects.BLAKE3)
			fr, err := newRemote(t, srv, bucket, "k").Fetch(ctx, remote.FetchRequest{Wants: []objects.OID{run}, Depth: remote.NoDepth}, sink)
			if err != nil || fr.Objects != 3 {
				t.Fatalf("fetch: %+v, %v", fr, err)
			}
		})
	}
}
