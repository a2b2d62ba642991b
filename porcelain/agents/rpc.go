package agents

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// The wire: MCP's stdio transport is JSON-RPC 2.0, one message per line
// (no embedded newlines), UTF-8, stdin to the server and stdout back.

// JSON-RPC error codes the server answers with.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// ErrFrameTooLarge means a client sent a line longer than MaxFrameBytes.
// Its id was never read, so it cannot be answered, and what follows it is
// not known to start a message: the session ends.
var ErrFrameTooLarge = errors.New("inbound JSON-RPC frame exceeded the maximum line length")

// message is one inbound JSON-RPC message: a request (an id and a
// method), a notification (a method, no id) or a response to a request of
// ours (the server sends none, so responses are ignored).
type message struct {
	JSONRPC string `json:"jsonrpc"`
	// ID is empty when absent (a notification); JSON null is kept as
	// "null", which MCP does not allow for an id.
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// response is one outbound JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object; it is also the error a method
// handler returns to choose the code.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error is the message.
func (e *rpcError) Error() string { return e.Message }

// errorf builds an rpcError, its text bounded by MaxErrorText.
func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: bound(fmt.Sprintf(format, args...))}
}

// nullID is the id of an answer to a message whose id could not be read.
var nullID = json.RawMessage("null")

// parse reads one line into a message. A line that is not JSON is a parse
// error, one that is not a JSON-RPC 2.0 message an invalid request; both
// are answered with the id when it could be read and is a valid id, null
// otherwise (a client waits on that id; an id of another type is never
// echoed).
func parse(line []byte) (*message, *rpcError) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		if !json.Valid(line) {
			return nil, errorf(codeParse, "parse error: %v", err)
		}
		var te *json.UnmarshalTypeError
		switch trimmed := bytes.TrimSpace(line); {
		case trimmed[0] == '[':
			return nil, errorf(codeInvalidRequest, "invalid request: want one JSON-RPC object per line (batches are not supported)")
		case trimmed[0] != '{' || !errors.As(err, &te) || te.Field == "":
			return nil, errorf(codeInvalidRequest, "invalid request: want one JSON-RPC object per line")
		}
		// A member of the wrong type (jsonrpc and method are the only
		// typed ones); the rest of the object was still read.
		if m.ID != nil && !validID(m.ID) {
			m.ID = nil
		}
		return &message{ID: m.ID}, errorf(codeInvalidRequest, "invalid request: %q is a JSON %s, want a string", te.Field, te.Value)
	}
	if m.ID != nil && !validID(m.ID) {
		m.ID = nil
		if utf8.Valid(line) {
			return &m, errorf(codeInvalidRequest, "invalid request: an id is a string or an integer")
		}
	}
	// Go's decoder would read each invalid byte as U+FFFD: an event or a
	// claim would be recorded other than sent. MCP messages are UTF-8.
	if !utf8.Valid(line) {
		return &m, errorf(codeParse, "parse error: the message is not UTF-8")
	}
	if key, depth, dup := duplicateKey(line); dup {
		if depth == 1 && key == "id" {
			m.ID = nil
		}
		return &m, errorf(codeInvalidRequest, "invalid request: key %q is there twice in one object", key)
	}
	if m.JSONRPC != "2.0" {
		return &m, errorf(codeInvalidRequest, "invalid request: jsonrpc is %q, want \"2.0\"", m.JSONRPC)
	}
	if m.Method == "" && m.Result == nil && m.Error == nil {
		return &m, errorf(codeInvalidRequest, "invalid request: no method")
	}
	return &m, nil
}

// duplicateKey finds a key that is twice in one object of JSON text b,
// and the depth of that object (1 for the message itself). Go's decoder
// keeps the last; other parsers keep the first or refuse, so a proxy
// checking a message could read another tool or argument than tine runs:
// such a message is refused, never read either way.
func duplicateKey(b []byte) (key string, depth int, dup bool) {
	type frame struct {
		keys    map[string]bool // nil in an array
		wantKey bool
	}
	var stack []*frame
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // a number too large for a float64 must not end the search
	for {
		tok, err := d.Token()
		if err != nil {
			return "", 0, false // the end, or invalid JSON, which Unmarshal refused
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if top = nil; len(stack) > 0 {
				top = stack[len(stack)-1]
			}
		default:
			if k, ok := tok.(string); ok && top != nil && top.keys != nil && top.wantKey {
				if top.keys[k] {
					return k, len(stack), true
				}
				top.keys[k], top.wantKey = true, false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		if top != nil && top.keys != nil {
			top.wantKey = true
		}
	}
}

// validID says id is a JSON string or integer, as MCP requires (never
// null), and UTF-8, so that it can be echoed.
func validID(id json.RawMessage) bool {
	if !utf8.Valid(id) {
		return false
	}
	var s string
	if len(id) > 0 && id[0] == '"' {
		return json.Unmarshal(id, &s) == nil
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// idKey is the key of a request id in the table of calls in flight: the
// same for "7" spelt as a string twice, distinct from the number 7.
func idKey(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}

// lineReader reads the lines of the stream, each bounded.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

// newLineReader reads r.
func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next non-empty line without its line ending, valid
// until the next call; io.EOF at the end (a last line without a newline
// is still a line); ErrFrameTooLarge for a line over MaxFrameBytes.
func (l *lineReader) next() ([]byte, error) {
	for {
		l.buf = l.buf[:0]
		for {
			chunk, err := l.r.ReadSlice('\n')
			if len(l.buf)+len(chunk) > MaxFrameBytes+2 {
				return nil, fmt.Errorf("a message is longer than %d bytes: %w", MaxFrameBytes, ErrFrameTooLarge)
			}
			l.buf = append(l.buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (err != io.EOF || len(l.buf) == 0) {
				return nil, err
			}
			break
		}
		line := bytes.TrimRight(l.buf, "\r\n")
		if len(line) > MaxFrameBytes {
			return nil, fmt.Errorf("a message is longer than %d bytes: %w", MaxFrameBytes, ErrFrameTooLarge)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}
