package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test-secret-123"

// fake starts a server answering every request with handler and records
// the last request's path, headers and JSON body.
type fake struct {
	srv    *httptest.Server
	path   string
	header http.Header
	body   map[string]any
}

func newFake(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *fake {
	t.Helper()
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		f.path, f.header, f.body = r.URL.Path, r.Header.Clone(), nil
		_ = json.Unmarshal(raw, &f.body)
		handler(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func answer(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

const okChat = `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":100,"completion_tokens":7,"total_tokens":107,"prompt_tokens_details":{"cached_tokens":40}}}`

func TestOpenAIChatRequestShapeAndUsage(t *testing.T) {
	f := newFake(t, answer(200, okChat))
	rep, err := OpenAIChat(context.Background(), Request{BaseURL: f.srv.URL + "/v1/", Key: testKey, Model: "m-1",
		System: "sys", User: "bundle", MaxTokens: 300, ReasoningEffort: "low"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Text != "hello" || rep.ID != "chatcmpl-1" || rep.Status != "stop" {
		t.Fatalf("reply %+v", rep)
	}
	if rep.Usage != (Usage{Input: 60, CacheRead: 40, Output: 7}) || rep.Usage.Total() != 107 {
		t.Fatalf("usage %+v", rep.Usage)
	}
	if f.path != "/v1/chat/completions" || f.header.Get("Authorization") != "Bearer "+testKey || f.header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %v", f.path, f.header)
	}
	msgs, _ := f.body["messages"].([]any)
	if f.body["model"] != "m-1" || len(msgs) != 2 || f.body["max_completion_tokens"] != 300.0 || f.body["reasoning_effort"] != "low" {
		t.Fatalf("body %v", f.body)
	}
	if m0, m1 := msgs[0].(map[string]any), msgs[1].(map[string]any); m0["role"] != "system" || m0["content"] != "sys" || m1["role"] != "user" || m1["content"] != "bundle" {
		t.Fatalf("messages %v", msgs)
	}
}

func TestAnthropicRequestShapeAndUsage(t *testing.T) {
	f := newFake(t, answer(200, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}],`+
		`"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":3,"cache_read_input_tokens":5,"cache_creation_input_tokens":2}}`))
	rep, err := AnthropicMessages(context.Background(), Request{BaseURL: f.srv.URL, Key: testKey, Model: "claude-x", System: "sys", User: "u", MaxTokens: 2048})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Text != "hi there" || rep.ID != "msg_1" || rep.Usage != (Usage{Input: 10, CacheRead: 5, CacheWrite: 2, Output: 3}) {
		t.Fatalf("reply %+v", rep)
	}
	if f.path != "/v1/messages" || f.header.Get("x-api-key") != testKey || f.header.Get("anthropic-version") != AnthropicVersion || f.header.Get("Authorization") != "" {
		t.Fatalf("request %s %v", f.path, f.header)
	}
	if f.body["model"] != "claude-x" || f.body["system"] != "sys" || f.body["max_tokens"] != 2048.0 {
		t.Fatalf("body %v", f.body)
	}
}

func TestCallFailures(t *testing.T) {
	big := `{"id":"x","choices":[{"message":{"content":"` + strings.Repeat("a", 2000) + `"},"finish_reason":"stop"}]}`
	cases := []struct {
		name      string
		handler   func(http.ResponseWriter, *http.Request)
		want      error
		transient bool
	}{
		{"429", answer(429, `{"error":{"message":"rate limited for key `+testKey+`"}}`), ErrStatus, true},
		{"500", answer(500, "boom"), ErrStatus, true},
		{"401", answer(401, "bad key"), ErrStatus, false},
		{"not json", answer(200, "<html>"), ErrMalformed, false},
		{"trailing data", answer(200, okChat+" {}"), ErrMalformed, false},
		{"no choices", answer(200, `{"id":"x","choices":[]}`), ErrMalformed, false},
		{"cached over prompt", answer(200, `{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}`), ErrMalformed, false},
		{"refusal", answer(200, `{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`), ErrNoAnswer, false},
		{"cut", answer(200, `{"choices":[{"message":{"content":"{\"ver"},"finish_reason":"length"}]}`), ErrNoAnswer, false},
		{"empty", answer(200, `{"choices":[{"message":{"content":""},"finish_reason":"stop"}]}`), ErrNoAnswer, false},
		{"oversized", answer(200, big), ErrTooLarge, false},
		{"timeout", func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, ErrTimeout, true},
	}
	for _, tc := range cases {
		f := newFake(t, tc.handler)
		_, err := OpenAIChat(context.Background(), Request{BaseURL: f.srv.URL, Key: testKey, Model: "m", User: "u",
			MaxResponse: 1024, Timeout: 200 * time.Millisecond})
		if !errors.Is(err, tc.want) || Transient(err) != tc.transient {
			t.Errorf("%s: got %v (transient %v)", tc.name, err, Transient(err))
		}
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: the key leaked into the error: %v", tc.name, err)
		}
	}
}

func TestAnthropicFailures(t *testing.T) {
	cases := map[string]string{
		"not a message": `{"type":"error","error":{"type":"overloaded_error"}}`,
		"max tokens":    `{"type":"message","content":[{"type":"text","text":"{"}],"stop_reason":"max_tokens"}`,
		"no text":       `{"type":"message","content":[],"stop_reason":"end_turn"}`,
		"refusal":       `{"type":"message","content":[{"type":"text","text":"x"}],"stop_reason":"refusal"}`,
	}
	for name, body := range cases {
		f := newFake(t, answer(200, body))
		_, err := AnthropicMessages(context.Background(), Request{BaseURL: f.srv.URL, Key: testKey, Model: "m", User: "u", MaxTokens: 256})
		if err == nil || Transient(err) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	f := newFake(t, answer(529, "overloaded"))
	if _, err := AnthropicMessages(context.Background(), Request{BaseURL: f.srv.URL, Key: testKey, Model: "m", User: "u", MaxTokens: 256}); !Transient(err) {
		t.Errorf("529: got %v", err)
	}
}

func TestLookupKeyAndBaseURL(t *testing.T) {
	if _, err := LookupKey([]string{"OTHER=x", "MY_KEY="}, "MY_KEY"); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "MY_KEY") {
		t.Fatalf("empty key: %v", err)
	}
	if k, err := LookupKey([]string{"MY_KEY=a", "MY_KEY=b"}, "MY_KEY"); err != nil || k != "b" {
		t.Fatalf("last wins: %q %v", k, err)
	}
	for _, bad := range []string{"ftp://h", "/v1", "https://user:pw@h/v1", "https://h/v1?x=1", "https://h/v1#f", "http://"} {
		if CheckBaseURL(bad) == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if err := CheckBaseURL("http://127.0.0.1:8080/v1"); err != nil {
		t.Fatal(err)
	}
}

// TestRedirectIsNotFollowed: the key must not travel to a host a
// redirect names, so a 3xx is an error and the other host gets nothing.
func TestRedirectIsNotFollowed(t *testing.T) {
	other := newFake(t, answer(200, okChat))
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	for _, call := range []func(context.Context, Request) (Reply, error){OpenAIChat, AnthropicMessages} {
		_, err := call(context.Background(), Request{BaseURL: f.srv.URL, Key: testKey, Model: "m", User: "u", MaxTokens: 256})
		var se *StatusError
		if !errors.As(err, &se) || se.Code != http.StatusTemporaryRedirect {
			t.Fatalf("got %v", err)
		}
	}
	if other.header != nil {
		t.Fatalf("the redirect target got a request: %v", other.header)
	}
}

func TestStripFence(t *testing.T) {
	cases := map[string]string{
		"  {\"a\":1}\n":           `{"a":1}`,
		"```json\n{\"a\":1}\n```": `{"a":1}`,
		"```\n{\"a\":1}```":       `{"a":1}`,
		"```":                     "```",
		"```json {\"a\":1}```":    "```json {\"a\":1}```",
		"text ```json\n{}\n```":   "text ```json\n{}\n```",
	}
	for in, want := range cases {
		if got := string(StripFence([]byte(in))); got != want {
			t.Errorf("StripFence(%q) = %q, want %q", in, got, want)
		}
	}
}
