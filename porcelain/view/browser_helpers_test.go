package view_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/view"
)

// chromium returns the headless browser to drive. Without one the
// browser tests skip, except under CI, where .ci/run installs it and its
// absence is a failure.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{os.Getenv("TINE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal("chromium is not installed: the view's browser tests need it under CI (apt-get install -y chromium; .ci/run does)")
	}
	t.Skip("chromium is not installed: skipping the view's browser tests (apt-get install -y chromium, or set TINE_CHROMIUM)")
	return ""
}

// serve starts the view of r on a fresh loopback port and returns its
// base URL; the server stops when the test ends.
func serve(t testing.TB, r *plumbing.Repo) string {
	t.Helper()
	srv := view.NewServer(r)
	if err := srv.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listening(ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: time.Minute}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// browser is one headless Chromium tab and what it saw: every request it
// sent, and every console error or warning, uncaught exception and error
// or warning log entry (a refused request, a CSP violation).
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	requests []string
	problems []string
}

// newBrowser starts headless Chromium with a new empty profile and the
// flags that keep it off the network (this machine refuses its
// background connections), and listens to its events.
func newBrowser(t testing.TB, width, height int) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
	}
	b := &browser{}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	// Generous: a loaded 2-core CI machine starts Chromium slowly.
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return b
}

// listen records the tab's events; it runs in the tab's message loop.
func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			b.problems = append(b.problems, "console."+string(ev.Type)+": "+consoleText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		b.problems = append(b.problems, "exception: "+d.Text+" "+d.URL+consoleText([]*runtime.RemoteObject{d.Exception}))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			b.problems = append(b.problems, "log "+string(ev.Entry.Level)+": "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// consoleText joins a console call's arguments.
func consoleText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a == nil {
			continue
		}
		if len(a.Value) > 0 {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// do runs actions in the tab.
func (b *browser) do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// waitJS polls a JavaScript expression until it is true.
func (b *browser) waitJS(t testing.TB, expr string) {
	t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(2*time.Minute)))
	if err != nil {
		detail, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`JSON.stringify({status: document.getElementById("status").textContent, hook: window.tineView})`))
		t.Fatalf("waiting for %s: %v (%s)", expr, err, detail)
	}
}

// evalJS evaluates a JavaScript expression.
func evalJS[T any](t testing.TB, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// check fails the test when the page reported a problem or sent a
// request anywhere but base.
func (b *browser) check(t testing.TB, base string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.problems) > 0 {
		t.Fatalf("the page reported problems:\n%s", strings.Join(b.problems, "\n"))
	}
	if len(b.requests) == 0 {
		t.Fatal("no requests seen: the network listener is not working")
	}
	for _, u := range b.requests {
		if !strings.HasPrefix(u, base) {
			t.Fatalf("the page sent a request off its loopback origin: %s", u)
		}
	}
}

// screenshot writes a PNG of the page to $TINE_VIEW_SCREENSHOTS (a
// directory) or the test's temporary directory, and logs where.
func (b *browser) screenshot(t testing.TB, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("TINE_VIEW_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// point is a place on the page in CSS pixels.
type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// nodePoint returns where event oid's node is drawn, scrolling the graph
// down (the mouse wheel over it, as a user would) until it is in sight.
func (b *browser) nodePoint(t testing.TB, oid string) point {
	t.Helper()
	expr := "window.tineView.nodePoint(" + strconv.Quote(oid) + ")"
	for range 100 {
		if evalJS[bool](t, b, expr+" !== null") {
			p := evalJS[point](t, b, expr)
			if p.Y < evalJS[float64](t, b, `document.getElementById("graph").getBoundingClientRect().bottom`)-20 {
				return p
			}
		}
		// The protocol wants both deltas and drops a zero one: pan one
		// pixel sideways too.
		b.do(t, chromedp.MouseEvent(chromedp.MouseWheel, 300, 300, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 1, 240 }))
		b.waitJS(t, "window.tineView.drawnNodes > 0")
	}
	t.Fatalf("event %s never came into sight", oid)
	return point{}
}
