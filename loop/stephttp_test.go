package loop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

const stepKey = "sk-step-secret-42"

// chatServer is a fake chat completions API: answer builds each reply
// from the decoded tine-step/1 request; it keeps the requests it got.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	header []http.Header
	bodies []map[string]any
}

func newChatServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, req map[string]any)) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.header, s.bodies = append(s.header, r.Header.Clone()), append(s.bodies, body)
		s.mu.Unlock()
		var req map[string]any
		if msgs, ok := body["messages"].([]any); ok && len(msgs) == 2 {
			content, _ := msgs[1].(map[string]any)["content"].(string)
			_ = json.Unmarshal([]byte(content), &req)
		}
		answer(w, r, req)
	}))
	t.Cleanup(s.Close)
	return s
}

// completion writes text as a chat completion with usage.
func completion(w http.ResponseWriter, text string) {
	b, _ := json.Marshal(text)
	_, _ = io.WriteString(w, `{"id":"c1","choices":[{"message":{"role":"assistant","content":`+string(b)+`},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":500,"completion_tokens":60,"total_tokens":560,"prompt_tokens_details":{"cached_tokens":120}}}`)
}

func fixed(status int, text string) func(http.ResponseWriter, *http.Request, map[string]any) {
	return func(w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		if status != 200 {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, text)
			return
		}
		completion(w, text)
	}
}

func httpStep(t *testing.T, url string, c StepHTTP) Step {
	t.Helper()
	c.URL, c.Env = url+"/v1", []string{"STEP_KEY=" + stepKey}
	if c.Model == "" {
		c.Model = "small-model"
	}
	if c.KeyEnv == "" {
		c.KeyEnv = "STEP_KEY"
	}
	step, err := HTTPStep(c)
	if err != nil {
		t.Fatal(err)
	}
	return step
}

func TestHTTPStepRequestShapeAndResult(t *testing.T) {
	srv := newChatServer(t, fixed(200, "```json\n"+`{"score":0.25,"observation":"x is far","next_states":[{"state":{"x":2},"score":0.5}]}`+"\n```"))
	step := httpStep(t, srv.URL, StepHTTP{MaxTokens: 500})
	res, err := step(context.Background(), StepInput{Goal: "reach 42", State: obj("x", 1), Iteration: 3, BranchStep: 3, BranchID: "root"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Score != 0.25 || res.Observation != "x is far" || len(res.Proposals) != 1 || *res.Proposals[0].Score != 0.5 {
		t.Fatalf("result %+v", res)
	}
	if res.Usage != (Usage{Input: 380, CacheRead: 120, Output: 60}) || res.Model != "small-model" || res.Provider != StepHTTPProvider {
		t.Fatalf("usage %+v model %q provider %q", res.Usage, res.Model, res.Provider)
	}
	h, body := srv.header[0], srv.bodies[0]
	if h.Get("Authorization") != "Bearer "+stepKey || body["model"] != "small-model" || body["max_completion_tokens"] != 500.0 {
		t.Fatalf("request %v %v", h, body)
	}
	msgs := body["messages"].([]any)
	if sys := msgs[0].(map[string]any); sys["role"] != "system" || !strings.Contains(sys["content"].(string), "tine-step/1") {
		t.Fatalf("system %v", sys)
	}
	want, _ := StepRequest(StepInput{Goal: "reach 42", State: obj("x", 1), Iteration: 3, BranchStep: 3, BranchID: "root"})
	if user := msgs[1].(map[string]any); user["role"] != "user" || user["content"] != string(want) {
		t.Fatalf("user %v, want %s", user, want)
	}
}

func TestHTTPStepFailsClosed(t *testing.T) {
	cases := []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request, map[string]any)
		c      StepHTTP
		want   string
	}{
		{"prose", fixed(200, "I would try x=2."), StepHTTP{}, "outside tine-step/1"},
		{"no score", fixed(200, `{"observation":"?"}`), StepHTTP{}, `missing "score"`},
		{"unknown key", fixed(200, `{"score":1,"confidence":0.9}`), StepHTTP{}, "unknown key"},
		{"cost from the model", fixed(200, `{"score":1,"cost":0.5}`), StepHTTP{}, `may not set "cost"`},
		{"429", fixed(429, `{"error":"rate limit for `+stepKey+`"}`), StepHTTP{}, "HTTP 429"},
		{"500", fixed(500, "down"), StepHTTP{}, "HTTP 500: down"},
		{"malformed API body", fixed(200, ""), StepHTTP{}, "no usable answer"},
		{"oversized", fixed(200, `{"score":1,"observation":"`+strings.Repeat("a", 5000)+`"}`), StepHTTP{MaxResponse: 4096}, "more than 4096 bytes"},
		{"timeout", func(_ http.ResponseWriter, r *http.Request, _ map[string]any) { <-r.Context().Done() }, StepHTTP{Timeout: 200 * time.Millisecond}, "took longer than 200ms"},
	}
	for _, tc := range cases {
		srv := newChatServer(t, tc.answer)
		_, err := httpStep(t, srv.URL, tc.c)(context.Background(), StepInput{State: obj("x", 1)})
		if !errors.Is(err, ErrStepHTTP) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), stepKey) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestHTTPStepConfig(t *testing.T) {
	cases := []struct {
		c    StepHTTP
		want string
	}{
		{StepHTTP{URL: "http://127.0.0.1:9/v1", Model: "m", Env: []string{}}, "environment variable OPENAI_API_KEY is not set"},
		{StepHTTP{URL: "http://127.0.0.1:9/v1", Model: "m", KeyEnv: "MY_KEY", Env: []string{"MY_KEY="}}, "environment variable MY_KEY is not set"},
		{StepHTTP{URL: "http://127.0.0.1:9/v1", Env: []string{"OPENAI_API_KEY=k"}}, "no model"},
		{StepHTTP{URL: "https://api.openai.com/v1/chat/completions", Model: "m", Env: []string{"OPENAI_API_KEY=k"}}, "base URL"},
		{StepHTTP{URL: "api.openai.com", Model: "m", Env: []string{"OPENAI_API_KEY=k"}}, "bad base URL"},
	}
	for _, tc := range cases {
		if _, err := HTTPStep(tc.c); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v", tc.c, err)
		}
	}
}

// TestHTTPStepInALoop runs the engine on a model that moves x toward 3
// and checks each iteration record carries the call's usage and model.
func TestHTTPStepInALoop(t *testing.T) {
	srv := newChatServer(t, func(w http.ResponseWriter, _ *http.Request, req map[string]any) {
		x := req["state"].(map[string]any)["x"].(float64)
		score := -math.Abs(3 - x)
		next, _ := json.Marshal(map[string]any{"score": score, "observation": "ok", "stop": x == 3,
			"next_states": []any{map[string]any{"state": map[string]any{"x": x + 1}, "score": score + 1}}})
		completion(w, string(next))
	})
	tr := &traceRecorder{}
	res, err := Run(context.Background(), Config{Initial: obj("x", 0), Step: httpStep(t, srv.URL, StepHTTP{}),
		Recorder: tr, Now: fixedClock(time.Second), Policy: Policy{MaxSteps: 10, Width: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.Score != 0 || len(tr.iters) != 4 {
		t.Fatalf("best %+v after %d iterations", res.Best, len(tr.iters))
	}
	for _, it := range tr.iters {
		if it.Usage != (Usage{Input: 380, CacheRead: 120, Output: 60}) || it.Model != "small-model" || it.Provider != StepHTTPProvider {
			t.Fatalf("iteration %d: usage %+v model %q provider %q", it.Iteration, it.Usage, it.Model, it.Provider)
		}
	}
	if v, _ := objects.ParseJSON([]byte(`{"x":3}`), objects.ParseOptions{}); canon(res.Best.State) != canon(v) {
		t.Fatalf("best state %s", canon(res.Best.State))
	}
}
