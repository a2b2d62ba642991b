package gate

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

const providerKey = "fake-provider-key-0123456789"

// reply is one canned HTTP answer; block makes the server wait until the
// client gives up.
type reply struct {
	status int
	body   string
	block  bool
}

// modelServer is a fake model API answering replies in order (the last
// one repeats) and keeping every request it got.
type modelServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	reqs    []*http.Request
	bodies  []map[string]any
}

func newModelServer(t *testing.T, replies ...reply) *modelServer {
	t.Helper()
	s := &modelServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.reqs, s.bodies = append(s.reqs, r), append(s.bodies, body)
		rep := s.replies[min(len(s.reqs), len(s.replies))-1]
		s.mu.Unlock()
		if rep.block {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *modelServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// chat wraps verdict text in an OpenAI chat completion.
func chat(text string) reply {
	b, _ := json.Marshal(text)
	return reply{200, `{"id":"chatcmpl-7","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":` + string(b) +
		`},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":40,"total_tokens":1240,"prompt_tokens_details":{"cached_tokens":200}}}`, false}
}

// message wraps verdict text in an Anthropic message.
func message(text string) reply {
	b, _ := json.Marshal(text)
	return reply{200, `{"id":"msg_9","type":"message","role":"assistant","content":[{"type":"text","text":` + string(b) +
		`}],"stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":30}}`, false}
}

func providerContract(typ, url, extra string) string {
	return "constraints:\n  review: {kind: rubric, enforcement: advisory, evaluator: judge, rubric: Check the parser handles errors., include: ['src/**']}\n" +
		"evaluators:\n  judge: {type: " + typ + ", model: judge-model, base_url: '" + url + "', api_key_env: JUDGE_TOKEN" + extra + "}\n"
}

// runProvider executes the rubric with a recording, instant Sleep.
func runProvider(t *testing.T, contract string, env []string) (*Evidence, []time.Duration) {
	t.Helper()
	root := project(t, map[string]string{"src/parser.go": "package parser\n"})
	c := mustLoad(t, contract)
	var slept []time.Duration
	e := NewEngine(time.Now)
	e.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	ev, err := e.Execute(context.Background(), c.Constraint("review"), ExecEnv{Root: root, Contract: c, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return ev, slept
}

var keyEnv = []string{"JUDGE_TOKEN=" + providerKey}

func TestOpenAIEvaluatorVerdicts(t *testing.T) {
	cases := []struct {
		name     string
		replies  []reply
		extra    string
		want     Verdict
		calls    int
		slept    int
		errWants string
	}{
		{"pass", []reply{chat(ansPass)}, "", Pass, 1, 0, ""},
		{"fenced fail", []reply{chat("```json\n" + ansFail + "\n```")}, "", Fail, 1, 0, ""},
		{"model says uncertain", []reply{chat(ansUnc)}, "", Uncertain, 1, 0, ""},
		{"malformed verdict", []reply{chat(`{"verdict":"pass","rationale":"ok","confidence":1}`)}, "", Uncertain, 1, 0, "unexpected key"},
		{"prose", []reply{chat("Looks good to me!")}, "", Uncertain, 1, 0, "not valid JSON"},
		{"model-made envelope", []reply{chat(ansEnv)}, "", Uncertain, 1, 0, "bare verdict"},
		{"429 then pass", []reply{{429, `{"error":{"message":"slow down"}}`, false}, chat(ansPass)}, "", Pass, 2, 1, ""},
		{"500 exhausts attempts", []reply{{500, "upstream broke", false}}, ", max_attempts: 3", Uncertain, 3, 2, "HTTP 500: upstream broke"},
		{"401 is not retried", []reply{{401, `{"error":"invalid key ` + providerKey + `"}`, false}}, "", Uncertain, 1, 0, "HTTP 401"},
		{"refusal is not retried", []reply{{200, `{"choices":[{"message":{"content":null,"refusal":"I can't"},"finish_reason":"stop"}]}`, false}}, "", Uncertain, 1, 0, "refused"},
		{"malformed API body", []reply{{200, `{"choices":"nope"}`, false}}, "", Uncertain, 1, 0, "malformed response"},
		{"oversized body", []reply{chat(strings.Repeat("x", maxProviderResponse))}, "", Uncertain, 1, 0, "more than 1048576 bytes"},
		{"timeout", []reply{{block: true}}, ", timeout_seconds: 0.2, max_attempts: 1", Uncertain, 1, 0, "took longer than 200ms"},
	}
	for _, tc := range cases {
		srv := newModelServer(t, tc.replies...)
		ev, slept := runProvider(t, providerContract("openai", srv.URL+"/v1", tc.extra), keyEnv)
		if ev.Verdict != tc.want || srv.count() != tc.calls || len(slept) != tc.slept {
			t.Errorf("%s: verdict %s (%q), %d calls, slept %v", tc.name, ev.Verdict, ev.Output, srv.count(), slept)
			continue
		}
		if tc.errWants != "" && (ev.Runs[0].Error == "" || !strings.Contains(ev.Runs[0].Error, tc.errWants)) {
			t.Errorf("%s: run error %q, want it to mention %q", tc.name, ev.Runs[0].Error, tc.errWants)
		}
		if strings.Contains(string(ev.Output), providerKey) || strings.Contains(ev.Runs[0].Error, providerKey) || strings.Contains(ev.Runs[0].Metadata, providerKey) {
			t.Errorf("%s: the API key reached the evidence", tc.name)
		}
		if tc.want != Pass && ev.Runs[0].Error != "" && ev.Category != CategoryEnvironment {
			t.Errorf("%s: category %s", tc.name, ev.Category)
		}
	}
}

func TestOpenAIEvaluatorRequestShapeAndMetadata(t *testing.T) {
	srv := newModelServer(t, chat(ansPass))
	ev, _ := runProvider(t, providerContract("openai", srv.URL+"/v1/", ", reasoning_effort: low"), keyEnv)
	if ev.Verdict != Pass {
		t.Fatalf("verdict %s %q", ev.Verdict, ev.Output)
	}
	r, body := srv.reqs[0], srv.bodies[0]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+providerKey {
		t.Fatalf("request %s %s %v", r.Method, r.URL.Path, r.Header)
	}
	if body["model"] != "judge-model" || body["max_completion_tokens"] != 2000.0 || body["reasoning_effort"] != "low" {
		t.Fatalf("body %v", body)
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", msgs)
	}
	sys, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if sys["role"] != "system" || !strings.Contains(sys["content"].(string), "untrusted evidence") || user["role"] != "user" {
		t.Fatalf("messages %v", msgs)
	}
	bundle, err := objects.ParseJSON([]byte(user["content"].(string)), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := bundle.Get("constraint_id"); id.Str != "review" {
		t.Fatalf("bundle %s", user["content"])
	}
	want := `{"attempts":1,"duration_ms":`
	md := ev.Runs[0].Metadata
	if !strings.HasPrefix(md, want) || !strings.Contains(md, `"input_tokens":1200,"model":"judge-model","output_tokens":40,"provider":"openai","response_id":"chatcmpl-7","status":"stop","total_tokens":1240}`) {
		t.Fatalf("metadata %s", md)
	}
	// reasoning_effort is sent only when the contract sets it.
	srv2 := newModelServer(t, chat(ansPass))
	runProvider(t, providerContract("openai", srv2.URL, ""), keyEnv)
	if _, ok := srv2.bodies[0]["reasoning_effort"]; ok {
		t.Fatalf("default reasoning_effort sent: %v", srv2.bodies[0])
	}
}

func TestAnthropicEvaluator(t *testing.T) {
	srv := newModelServer(t, reply{529, "overloaded", false}, message(ansFail))
	ev, slept := runProvider(t, providerContract("anthropic", srv.URL, ""), keyEnv)
	if ev.Verdict != Fail || srv.count() != 2 || len(slept) != 1 || slept[0] != time.Second {
		t.Fatalf("verdict %s (%q), %d calls, slept %v", ev.Verdict, ev.Output, srv.count(), slept)
	}
	r, body := srv.reqs[1], srv.bodies[1]
	if r.URL.Path != "/v1/messages" || r.Header.Get("x-api-key") != providerKey || r.Header.Get("anthropic-version") == "" || r.Header.Get("Authorization") != "" {
		t.Fatalf("request %s %v", r.URL.Path, r.Header)
	}
	if body["model"] != "judge-model" || body["max_tokens"] != 2048.0 || !strings.Contains(body["system"].(string), "untrusted") {
		t.Fatalf("body %v", body)
	}
	if len(ev.Findings) != 1 || !strings.Contains(ev.Runs[0].Metadata, `"attempts":2`) || !strings.Contains(ev.Runs[0].Metadata, `"provider":"anthropic"`) {
		t.Fatalf("findings %v metadata %s", ev.Findings, ev.Runs[0].Metadata)
	}
	empty := newModelServer(t, message(""))
	if ev, _ := runProvider(t, providerContract("anthropic", empty.URL, ""), keyEnv); ev.Verdict != Uncertain || empty.count() != 1 {
		t.Fatalf("empty text: %s after %d calls", ev.Verdict, empty.count())
	}
}

func TestProviderEvaluatorWithoutKey(t *testing.T) {
	srv := newModelServer(t, chat(ansPass))
	ev, _ := runProvider(t, providerContract("openai", srv.URL, ""), []string{"PATH=/usr/bin:/bin", "JUDGE_TOKEN="})
	if ev.Verdict != Uncertain || ev.Category != CategoryEnvironment || srv.count() != 0 {
		t.Fatalf("got %s %s after %d calls", ev.Verdict, ev.Category, srv.count())
	}
	if !strings.Contains(ev.Runs[0].Error, "environment variable JUDGE_TOKEN is not set") {
		t.Fatalf("error %q does not name the variable", ev.Runs[0].Error)
	}
}

func TestProviderBaseURL(t *testing.T) {
	for _, bad := range []string{"ftp://host/v1", "https://user:pw@host/v1", "localhost:8080"} {
		if _, err := LoadContract([]byte(providerContract("openai", bad, ""))); err == nil || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	c := mustLoad(t, "constraints:\n  t: {kind: command, command: ['true']}\nevaluators:\n  o: {type: openai, model: m}\n  a: {type: anthropic, model: m}\n")
	if c.Evaluator("o").Endpoint() != "https://api.openai.com/v1" || c.Evaluator("a").Endpoint() != "https://api.anthropic.com" {
		t.Fatal("default endpoints")
	}
	with := mustLoad(t, "constraints:\n  t: {kind: command, command: ['true']}\nevaluators:\n  o: {type: openai, model: m, base_url: 'http://127.0.0.1:9/v1'}\n  a: {type: anthropic, model: m}\n")
	d1, _ := contractDigest(c)
	d2, _ := contractDigest(with)
	if d1 == d2 {
		t.Fatal("base_url does not change the contract digest")
	}
}
