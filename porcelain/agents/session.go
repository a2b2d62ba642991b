package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// maxInFlight bounds the tool calls one session runs at once. Up to
// maxWaiting more wait for a free one apart from the reading, so that a
// ping, tools/list or a cancellation sent after them is still read and
// answered at once; a client sending more calls still waits (its next
// request is not read) until one starts, so it cannot make the server
// hold an unbounded number of requests. Notifications are read even then,
// so the client can cancel a call that waits, or one that runs.
const (
	maxInFlight = 16
	maxWaiting  = 16
)

// session is one client's connection: the negotiated state, the calls in
// flight and the one writer of responses.
type session struct {
	srv *Server

	// wmu serialises whole response lines on w; werr is the first write
	// error, after which nothing more is written and the session ends.
	wmu  sync.Mutex
	w    io.Writer
	werr error

	// mu guards the fields below it.
	mu          sync.Mutex
	initialized bool
	// inflight holds the cancel function of each running tools/call by
	// idKey; cancelled marks the ones the client cancelled, whose answers
	// are dropped (the client no longer waits for them).
	inflight  map[string]context.CancelFunc
	cancelled map[string]bool

	calls sync.WaitGroup
	// slots holds one token per running call, waiting one per call that
	// waits for a slot (maxInFlight, maxWaiting).
	slots   chan struct{}
	waiting chan struct{}
}

// Serve runs the server over one client's stream: requests from r,
// responses to w, until r ends (the calls in flight finish and are
// answered first), a write fails, a line is over MaxFrameBytes or ctx
// ends. Only protocol messages are written to w.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss := &session{srv: s, w: w, inflight: map[string]context.CancelFunc{}, cancelled: map[string]bool{}, slots: make(chan struct{}, maxInFlight), waiting: make(chan struct{}, maxWaiting)}
	// Reads block on the client; they run apart so that ctx ends the
	// session even while the client is silent. Notifications are handled
	// as they are read, so a cancellation reaches a call even while the
	// next request waits (maxWaiting calls already wait for a slot);
	// every other message is handed over in order, one at a time.
	type read struct {
		m    *message
		perr *rpcError
		err  error
	}
	lines, next := make(chan read), make(chan struct{})
	go func() {
		lr := newLineReader(r)
		for {
			var rd read
			var line []byte
			line, rd.err = lr.next()
			if rd.err == nil {
				rd.m, rd.perr = parse(line)
				if rd.perr == nil && rd.m.Method != "" && rd.m.ID == nil {
					ss.notify(rd.m)
					continue
				}
			}
			select {
			case lines <- rd:
			case <-ctx.Done():
				return
			}
			if rd.err != nil {
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
	}()
	var err error
	for err == nil {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case rd := <-lines:
			if rd.err != nil {
				err = rd.err
				break
			}
			start := ss.handle(ctx, rd.m, rd.perr)
			if err = ss.writeErr(); err == nil {
				select {
				case next <- struct{}{}:
				case <-ctx.Done():
				}
			}
			if start != nil {
				start()
			}
		}
	}
	if err != io.EOF {
		cancel()
	}
	ss.calls.Wait()
	if err == io.EOF {
		err = ss.writeErr()
	}
	return err
}

// handle answers one message (m, or the reason perr it is malformed). A
// tools/call is registered as in flight, so that it can be cancelled, and
// returned as start, which hands it to its own goroutine (a slow call
// does not hold up the others) once it may wait there (maxWaiting); the
// goroutine runs it once a slot is free. Every other method is answered
// before the next line is read.
func (ss *session) handle(ctx context.Context, m *message, perr *rpcError) (start func()) {
	if perr != nil {
		id := nullID
		if m != nil && m.ID != nil {
			id = m.ID
		}
		ss.write(response{JSONRPC: "2.0", ID: id, Error: perr})
		return nil
	}
	if m.Method == "" {
		return nil // a response: the server sends no requests
	}
	id := m.ID
	if m.Method != methodCallTool {
		res, err := ss.dispatch(m)
		ss.answer(id, res, err)
		return nil
	}
	if !ss.initializedNow() {
		ss.answer(id, nil, errorf(codeInvalidRequest, "method %q is invalid before initialize", m.Method))
		return nil
	}
	call, err := ss.srv.prepareCall(m.Params)
	if err != nil {
		ss.answer(id, nil, err)
		return nil
	}
	key := idKey(id)
	callCtx, cancel := context.WithCancel(ctx)
	ss.mu.Lock()
	if _, dup := ss.inflight[key]; dup {
		ss.mu.Unlock()
		cancel()
		ss.answer(id, nil, errorf(codeInvalidRequest, "request id %s is already in use by a call in flight", id))
		return nil
	}
	ss.inflight[key] = cancel
	ss.mu.Unlock()
	// Cancelled, by the client or the session's end, before it started:
	// the tool never runs.
	cancelled := func() {
		ss.finish(key, id, cancel, &callResult{Content: []textContent{{Type: "text", Text: "tools/call: cancelled before it started"}}, IsError: true})
	}
	return func() {
		select {
		case ss.waiting <- struct{}{}:
		case <-callCtx.Done():
			cancelled()
			return
		}
		ss.calls.Add(1)
		go func() {
			defer ss.calls.Done()
			select {
			case ss.slots <- struct{}{}:
				<-ss.waiting
			case <-callCtx.Done():
				<-ss.waiting
				cancelled()
				return
			}
			defer func() { <-ss.slots }()
			ss.finish(key, id, cancel, call(callCtx))
		}()
	}
}

// finish ends the call in flight under key: it is answered with res
// unless the client cancelled it (the client no longer waits for it).
func (ss *session) finish(key string, id json.RawMessage, cancel context.CancelFunc, res *callResult) {
	ss.mu.Lock()
	delete(ss.inflight, key)
	dropped := ss.cancelled[key]
	delete(ss.cancelled, key)
	ss.mu.Unlock()
	cancel()
	if !dropped {
		ss.answer(id, res, nil)
	}
}

// notify handles a notification; unknown ones are ignored, as JSON-RPC
// asks, and none is ever answered.
func (ss *session) notify(m *message) {
	switch m.Method {
	case "notifications/initialized":
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
			return
		}
		key := idKey(p.RequestID)
		ss.mu.Lock()
		if cancel, ok := ss.inflight[key]; ok {
			ss.cancelled[key] = true
			cancel()
		}
		ss.mu.Unlock()
	}
}

// initializedNow says initialize has been answered.
func (ss *session) initializedNow() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

// answer writes the response to request id: res, or err as a JSON-RPC
// error (an rpcError keeps its code; any other is internal).
func (ss *session) answer(id json.RawMessage, res any, err error) {
	if err == nil {
		ss.write(response{JSONRPC: "2.0", ID: id, Result: res})
		return
	}
	re, ok := err.(*rpcError)
	if !ok {
		re = errorf(codeInternal, "%v", err)
	}
	ss.write(response{JSONRPC: "2.0", ID: id, Error: re})
}

// write sends one response as one line. A response that cannot be
// encoded becomes an internal error for its id, never a broken line.
func (ss *session) write(r response) {
	b, err := encodeLine(r)
	if err != nil {
		b, _ = encodeLine(response{JSONRPC: "2.0", ID: r.ID, Error: errorf(codeInternal, "encoding the response: %v", err)})
	}
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if ss.werr != nil {
		return
	}
	if _, err := ss.w.Write(b); err != nil {
		ss.werr = fmt.Errorf("writing to the client: %w", err)
	}
}

// encodeLine is v as JSON ending in a newline. "<", ">" and "&" are left
// as they are (text such as experiments/<source> reads as written); JSON
// never holds a raw newline, so the line is one message.
func encodeLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeErr is the first write error.
func (ss *session) writeErr() error {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	return ss.werr
}
