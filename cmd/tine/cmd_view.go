package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"time"

	"github.com/tinehq/tine/porcelain/view"
)

// viewCmd is `tine view [--addr 127.0.0.1:0] [--open]`.
type viewCmd struct {
	Addr string `name:"addr" default:"127.0.0.1:0" placeholder:"HOST:PORT" help:"Loopback address to listen on (127.0.0.1, ::1 or localhost; port 0 picks a free one)."`
	Open bool   `name:"open" help:"Open the page in the default browser."`
}

// Help shows examples under `tine view --help`.
func (c *viewCmd) Help() string {
	return `Serves a read-only web page of the repository on a loopback address
until interrupted: every ref's runs drawn as lanes the way log --graph
draws them (drag to pan, wheel to scroll, Ctrl+wheel or +/- to zoom, f
to fit), an event's fields and blobs on click, a run's attestations and
promotions, the diff of two runs and the runs table (sortable). The page
and its scripts are in the binary; it loads nothing from the network and
answers only GET.

Examples:

    $ tine view
    $ tine view --addr 127.0.0.1:8080 --open`
}

// Run serves the view until the context ends (Ctrl-C).
func (c *viewCmd) Run(e *env) error {
	if err := checkViewAddr(c.Addr); err != nil {
		return err
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	srv := view.NewServer(r)
	if err := srv.Warm(e.ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", c.Addr, err)
	}
	srv.Listening(ln.Addr())
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(e.stdout, "tine view: serving %s (Ctrl-C stops)\n", url)
	if c.Open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "tine view: cannot open a browser (%v): open %s yourself\n", err, url)
		}
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving %s: %w", url, err)
	case <-e.ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stopping: %w", err)
	}
	return nil
}

// checkViewAddr refuses an address that is not HOST:PORT with HOST a
// loopback IP or "localhost": the view shows recorded content and must
// not be reachable from another machine.
func checkViewAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return usagef("--addr %q is not HOST:PORT", addr)
	}
	if !loopbackAddr(addr) {
		return usagef("--addr %q is not a loopback address: tine view listens on 127.0.0.1, ::1 or localhost only", addr)
	}
	return nil
}

// openBrowser asks the desktop to open url (tine's own address, never
// recorded text).
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it; its outcome is the desktop's
	return nil
}
