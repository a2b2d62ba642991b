// Command tine-conformance is tine's adapter for OpenTine's conformance
// suite: a long-lived process that reads one JSON request per stdin line and
// writes one JSON response per stdout line, flushed after each, as the
// suite's runner expects:
//
//	python docs/conformance/run_conformance.py --adapter tine-conformance \
//	    --level 2 --capability wtf8 --capability zlib --capability ed25519
//
// Lines may be up to 1 GiB (the suite's largest input is a 256 MiB+ pack,
// sent as base64). Diagnostics go to stderr; stdout carries responses only.
// The adapter runs the sha256 object profile.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tinehq/tine/internal/conformance"
)

func main() {
	if err := serve(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tine-conformance:", err)
		os.Exit(1)
	}
}

// serve answers requests until stdin ends. A line that is not a request
// (or is too long) still gets a response line, a refusal without a reason,
// so the runner never waits for an answer that will not come; the id is
// empty then, since it could not be read.
func serve(stdin io.Reader, stdout, stderr io.Writer) error {
	lines := conformance.NewLineReader(stdin, conformance.MaxLineBytes)
	out := bufio.NewWriterSize(stdout, 64<<10)
	h := conformance.NewHandler()
	for {
		line, err := lines.Next()
		if errors.Is(err, io.EOF) {
			return out.Flush()
		}
		var resp conformance.Response
		switch {
		case errors.Is(err, conformance.ErrLineTooLong):
			resp = conformance.Response{Message: err.Error()}
		case err != nil:
			return fmt.Errorf("reading stdin: %w", err)
		case len(line) == 0:
			continue
		default:
			req, perr := conformance.ParseRequest(line)
			if perr != nil {
				resp = conformance.Response{Message: perr.Error()}
			} else {
				resp = h.Handle(req)
			}
		}
		if !resp.OK && !resp.Unsupported && resp.Reason == "" {
			fmt.Fprintf(stderr, "%s: %s\n", resp.ID, firstLine(resp.Message))
		}
		b, err := conformance.EncodeResponse(resp)
		if err != nil {
			return fmt.Errorf("encoding the response to %q: %w", resp.ID, err)
		}
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("writing stdout: %w", err)
		}
		if err := out.Flush(); err != nil {
			return fmt.Errorf("writing stdout: %w", err)
		}
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
