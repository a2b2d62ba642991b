package httpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// StatusError is an error reply: its status and the server's fixed text.
// Reason and Message are why, when a tine server said so (a 403 to a
// client of tine's extension: wire.RefusalRole and the others); both are
// empty otherwise.
type StatusError struct {
	Method, URL string
	Status      int
	Text        string
	Reason      string
	Message     string
}

// Error names the request, the status and the server's text, then the
// reason and message when the server gave them.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, e.Text)
	if e.Reason != "" {
		msg += " (" + e.Reason + "): " + e.Message
	}
	return msg
}

// Is matches the sentinel of e's status class.
func (e *StatusError) Is(target error) bool {
	switch e.Status {
	case http.StatusUnauthorized:
		return target == ErrUnauthorized
	case http.StatusForbidden:
		return target == ErrForbidden
	case http.StatusNotFound:
		return target == ErrNotFound
	case http.StatusBadRequest:
		return target == ErrInvalid
	case http.StatusServiceUnavailable:
		return target == ErrBusy
	}
	return target == ErrServer
}

// statusError builds the error for an unexpected status, reading the
// {"error":…} text when the body is a small JSON object, and the reason
// and message of tine's extension when the body holds both and they pass
// wire.CheckRefusal (otherwise neither is shown: the status stands alone).
// The server's text, and a redirect's Location, are shown only when they
// pass wire.CheckReplyText: a hostile server must not drive the user's
// terminal or flood it (the status's own text stands instead).
func (c *Client) statusError(req request, resp *http.Response) error {
	e := &StatusError{Method: req.method, URL: c.describe(req.path), Status: resp.StatusCode, Text: http.StatusText(resp.StatusCode)}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Text = "redirect refused"
		if loc := resp.Header.Get("Location"); wire.CheckReplyText(loc) == nil {
			e.Text += " (to " + loc + ")"
		}
		return e
	}
	if m, err := readControl(resp); err == nil {
		var text, reason, message string
		if json.Unmarshal(m["error"], &text) == nil && wire.CheckReplyText(text) == nil {
			e.Text = text
		}
		if json.Unmarshal(m["reason"], &reason) == nil && json.Unmarshal(m["message"], &message) == nil && wire.CheckRefusal(reason, message) == nil {
			e.Reason, e.Message = reason, message
		}
	}
	return e
}

// refusalReason returns the reason a server gave for err, a reply's
// error; "" when it gave none.
func refusalReason(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Reason
	}
	return ""
}

// readControl reads a control reply: identity encoding, at most
// wire.MaxControlReply bytes (Content-Length checked first), within the
// JSON token budget, a JSON object.
func readControl(resp *http.Response) (map[string]json.RawMessage, error) {
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, fmt.Errorf("%w: reply encoded %q", ErrProtocol, enc)
	}
	if resp.ContentLength > wire.MaxControlReply {
		return nil, fmt.Errorf("%w: reply of %d bytes exceeds %d", ErrProtocol, resp.ContentLength, wire.MaxControlReply)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, wire.MaxControlReply+1))
	if err != nil {
		return nil, fmt.Errorf("read reply: %w", wire.TransportError(err))
	}
	if len(b) > wire.MaxControlReply {
		return nil, fmt.Errorf("%w: reply exceeds %d bytes", ErrProtocol, wire.MaxControlReply)
	}
	if err := objects.ScanShape(b, wire.MaxJSONTokens); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: reply is not a JSON object", ErrProtocol)
	}
	return m, nil
}

// readPack reads a pack reply: identity encoding, at most
// objects.MaxPackBytes (Content-Length checked first).
func readPack(resp *http.Response) ([]byte, error) {
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, fmt.Errorf("%w: pack encoded %q", ErrProtocol, enc)
	}
	if resp.ContentLength > objects.MaxPackBytes {
		return nil, fmt.Errorf("%w: pack of %d bytes exceeds %d", ErrProtocol, resp.ContentLength, objects.MaxPackBytes)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, objects.MaxPackBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read pack: %w", wire.TransportError(err))
	}
	if len(b) > objects.MaxPackBytes {
		return nil, fmt.Errorf("%w: pack exceeds %d bytes", ErrProtocol, objects.MaxPackBytes)
	}
	return b, nil
}

// exchange sends req and decodes its control reply, whose status must be
// one of ok: the do, close and call every control request makes.
func (c *Client) exchange(ctx context.Context, req request, ok ...int) (int, map[string]json.RawMessage, error) {
	resp, done, err := c.do(ctx, req)
	if err != nil {
		return 0, nil, err
	}
	defer done()
	defer resp.Body.Close()
	return c.call(req, resp, ok...)
}

// call decodes the reply to req, a control reply whose status is one of ok.
func (c *Client) call(req request, resp *http.Response, ok ...int) (int, map[string]json.RawMessage, error) {
	for _, s := range ok {
		if resp.StatusCode == s {
			m, err := readControl(resp)
			if err != nil {
				return 0, nil, fmt.Errorf("%s %s: %w", req.method, c.describe(req.path), err)
			}
			return s, m, nil
		}
	}
	return resp.StatusCode, nil, c.statusError(req, resp)
}

// intField decodes a non-negative JSON integer field.
func intField(m map[string]json.RawMessage, key string) (int64, error) {
	raw, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("%w: reply has no %q", ErrProtocol, key)
	}
	s := string(raw)
	if s == "" || len(s) > 18 || strings.Trim(s, "0123456789") != "" || len(s) > 1 && s[0] == '0' {
		return 0, fmt.Errorf("%w: %q is not a canonical non-negative integer", ErrProtocol, key)
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n, nil
}

// errorsIsStatus reports whether err is a *StatusError with status.
func errorsIsStatus(err error, status int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == status
}
