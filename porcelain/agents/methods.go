package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
)

// MCP method names the server answers.
const (
	methodInitialize = "initialize"
	methodPing       = "ping"
	methodListTools  = "tools/list"
	methodCallTool   = "tools/call"
)

// ProtocolVersions are the MCP protocol versions the server speaks,
// newest first. A client asking for another is answered with the newest;
// it may then disconnect. Clients of 2026-07-28, which first try the
// sessionless server/discover, are answered "method not found" and fall
// back to initialize, as that version requires of them.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// dispatch answers every request but tools/call.
func (ss *session) dispatch(m *message) (any, error) {
	switch m.Method {
	case methodInitialize:
		return ss.initialize(m.Params)
	case methodPing:
		return struct{}{}, nil
	case methodListTools:
		if !ss.initializedNow() {
			return nil, errorf(codeInvalidRequest, "method %q is invalid before initialize", m.Method)
		}
		return ss.srv.listTools(m.Params)
	}
	return nil, errorf(codeMethodNotFound, "method not found: %q", m.Method)
}

// initializeResult is the answer to initialize.
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions"`
}

// implementation names the server.
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// initialize negotiates the protocol version: the client's when the
// server speaks it, else the newest the server speaks. A session is
// initialized once.
func (ss *session) initialize(params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := paramsObject(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, errorf(codeInvalidParams, "invalid params: initialize needs a protocolVersion")
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initialized {
		return nil, errorf(codeInvalidRequest, "duplicate %q received", methodInitialize)
	}
	ss.initialized = true
	version := ProtocolVersions[0]
	if slices.Contains(ProtocolVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return initializeResult{
		ProtocolVersion: version,
		// The tool list is fixed for the life of the server.
		Capabilities: map[string]any{"tools": map[string]bool{"listChanged": false}},
		ServerInfo:   implementation{Name: "tine", Version: ss.srv.opt.Version},
		Instructions: instructions,
	}, nil
}

// paramsObject decodes a request's params, which must be a JSON object,
// into v.
func paramsObject(params json.RawMessage, v any) error {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || params[0] != '{' {
		return errorf(codeInvalidParams, "invalid params: want a JSON object")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(codeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// listTools answers tools/list: every tool, in one page (there are few).
// The server never hands out a cursor, so a client sending one is
// refused, as an unknown cursor is.
func (s *Server) listTools(params json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(params)) > 0 && string(bytes.TrimSpace(params)) != "null" {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		if err := paramsObject(params, &p); err != nil {
			return nil, err
		}
		if p.Cursor != nil && *p.Cursor != "" {
			return nil, errorf(codeInvalidParams, "invalid params: unknown cursor %q (the tool list is one page)", *p.Cursor)
		}
	}
	return struct {
		Tools []*toolDef `json:"tools"`
	}{s.tools}, nil
}

// callResult is the answer to tools/call: the output as JSON text and as
// structured content, or a tool error the agent reads.
type callResult struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// textContent is one text block of a result.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// prepareCall reads a tools/call's params and finds the tool; it returns
// the call to run. Bad params and unknown tools are protocol errors;
// everything the tool refuses, its arguments included, is a tool error
// (isError), which the agent sees and can correct.
func (s *Server) prepareCall(params json.RawMessage) (func(context.Context) *callResult, error) {
	var p struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := paramsObject(params, &p); err != nil {
		return nil, err
	}
	if p.Name == nil {
		return nil, errorf(codeInvalidParams, "invalid params: tools/call needs a tool name")
	}
	t := s.byName[*p.Name]
	if t == nil {
		return nil, errorf(codeInvalidParams, "unknown tool %q", *p.Name)
	}
	return func(ctx context.Context) *callResult {
		out, err := t.run(ctx, p.Arguments)
		if err != nil {
			return &callResult{Content: []textContent{{Type: "text", Text: bound(err.Error())}}, IsError: true}
		}
		return &callResult{Content: []textContent{{Type: "text", Text: string(out)}}, StructuredContent: out}
	}, nil
}
