package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// fakeModelKey is the API key the model sessions export; the fake server
// logs whether each request carried it, never the key itself.
const fakeModelKey = "fake-model-key-5f3a"

// TestModelScripts runs testdata/script/llm/*.txtar: `tine loop run
// --step-http` and gate rubric evaluators against a fake model API the
// test process serves on localhost (script command fakemodel).
func TestModelScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script", "llm"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TINE_DIR", "")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("OPENAI_API_KEY", "")
			env.Setenv("ANTHROPIC_API_KEY", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"capture":   cmdCapture,
			"fakemodel": cmdFakeModel,
		},
	})
}

// cmdFakeModel is the script command `fakemodel VAR BEHAVIOUR`: it starts
// a fake model API for the rest of the session, sets VAR to its base URL
// ($URL/v1 for OpenAI, $URL for Anthropic behaviours) and appends one line
// per request to model.log: method, path, model and whether the key was
// sent the API's way ("key=ok"). Behaviours:
//   - count: a tine-step/1 model moving state x toward 3 (stop at 3);
//   - prose: a chat completion whose text is not JSON;
//   - status-N: always HTTP N;
//   - judge-pass, judge-fail: a chat completion holding a rubric verdict;
//   - claude-pass: an Anthropic message holding a passing verdict.
func cmdFakeModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakemodel VAR BEHAVIOUR")
	}
	var mu sync.Mutex
	logPath := ts.MkAbs("model.log")
	behaviour := args[1]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(raw, &body)
		key := "bad"
		if r.Header.Get("Authorization") == "Bearer "+fakeModelKey || r.Header.Get("x-api-key") == fakeModelKey {
			key = "ok"
		}
		mu.Lock()
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s model=%s key=%s\n", r.Method, r.URL.Path, body.Model, key)
			f.Close()
		}
		mu.Unlock()
		var user string
		if n := len(body.Messages); n > 0 {
			user = body.Messages[n-1].Content
		}
		fakeModelAnswer(w, behaviour, user)
	}))
	ts.Defer(srv.Close)
	url := srv.URL + "/v1"
	if behaviour == "claude-pass" {
		url = srv.URL
	}
	ts.Setenv(args[0], url)
}

func fakeModelAnswer(w http.ResponseWriter, behaviour, user string) {
	var code int
	if _, err := fmt.Sscanf(behaviour, "status-%d", &code); err == nil {
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"error":{"message":"fake failure"}}`)
		return
	}
	text := "I think x should go up."
	switch behaviour {
	case "count":
		var req struct {
			State struct {
				X float64 `json:"x"`
			} `json:"state"`
		}
		_ = json.Unmarshal([]byte(user), &req)
		x := req.State.X
		b, _ := json.Marshal(map[string]any{"score": -math.Abs(3 - x), "observation": fmt.Sprintf("x=%g", x), "stop": x >= 3,
			"next_states": []any{map[string]any{"state": map[string]any{"x": x + 1}}}})
		text = string(b)
	case "judge-pass", "claude-pass":
		text = `{"verdict":"pass","score":0.9,"rationale":"errors are handled","findings":[]}`
	case "judge-fail":
		text = `{"verdict":"fail","score":0.1,"rationale":"errors are ignored","findings":[{"message":"error dropped","file_path":"main.go","line":3}]}`
	}
	b, _ := json.Marshal(text)
	if behaviour == "claude-pass" {
		_, _ = fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"input_tokens":800,"output_tokens":25}}`, b)
		return
	}
	_, _ = fmt.Fprintf(w, `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":500,"completion_tokens":60,"total_tokens":560,"prompt_tokens_details":{"cached_tokens":120}}}`, b)
}
