package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/llm"
)

// DefaultStepKeyEnv is the environment variable an HTTP step reads its API
// key from unless told otherwise.
const DefaultStepKeyEnv = "OPENAI_API_KEY"

// StepHTTPProvider is the provider an HTTP step's events name.
const StepHTTPProvider = "openai-compatible"

// ErrStepHTTP reports an HTTP step whose model call failed or whose reply
// is outside the protocol; like ErrStepCmd, the step fails closed.
var ErrStepHTTP = errors.New("HTTP step failed")

// StepHTTP configures a step that asks a model behind an OpenAI-compatible
// chat completions API.
type StepHTTP struct {
	// URL is the API's base URL ("https://api.openai.com/v1"); the step
	// posts to URL/chat/completions.
	URL string
	// Model names the model.
	Model string
	// KeyEnv names the environment variable holding the API key; ""
	// means DefaultStepKeyEnv.
	KeyEnv string
	// Env is where the key is looked up ("KEY=value"); nil means the
	// process environment.
	Env []string
	// Timeout bounds one request; 0 means DefaultStepTimeout.
	Timeout time.Duration
	// MaxResponse bounds the response body in bytes; 0 means
	// DefaultMaxStepResponse.
	MaxResponse int
	// MaxTokens bounds the model's answer; 0 leaves it to the server.
	MaxTokens int
}

// stepSystemPrompt explains tine-step/1's response to the model; the user
// message is the request object a step command would get on stdin.
const stepSystemPrompt = `You are one step of an improvement loop (protocol tine-step/1).
The user message is a JSON request: the loop's goal and context, the current state to evaluate,
the iteration, the branch and the best score so far. Score the current state (higher is better),
then propose improved next states.
Reply with exactly one JSON object and no other text:
{"score": number, "observation": "what you saw", "stop": false,
 "next_states": [{"state": <a JSON value, usually an object like the current state>, "score": predicted number}]}
Set "stop" to true only when the goal is reached and no further step can help.`

// HTTPStep returns a Step that sends each step's tine-step/1 request
// (StepRequest) to c.URL's chat completions endpoint as the user message
// and reads the model's answer as a tine-step/1 response
// (ParseStepResponse; a surrounding ``` fence is stripped). The key is
// read once, here: a missing key is an ErrConfig naming the variable. A
// failed call, an oversized or malformed reply, or a reply that sets
// "cost" (what a call costs is not the model's to say) is an ErrStepHTTP.
// The result carries the call's usage, c.Model and StepHTTPProvider.
func HTTPStep(c StepHTTP) (Step, error) {
	if c.KeyEnv == "" {
		c.KeyEnv = DefaultStepKeyEnv
	}
	switch {
	case c.Model == "":
		return nil, fmt.Errorf("%w: HTTP step: no model given", ErrConfig)
	case c.Timeout < 0 || c.MaxResponse < 0 || c.MaxTokens < 0:
		return nil, fmt.Errorf("%w: HTTP step: negative timeout or size bound", ErrConfig)
	case strings.HasSuffix(strings.TrimRight(c.URL, "/"), "/chat/completions"):
		return nil, fmt.Errorf("%w: HTTP step URL %q: give the API's base URL (e.g. https://api.openai.com/v1); tine appends /chat/completions", ErrConfig, c.URL)
	}
	if err := llm.CheckBaseURL(c.URL); err != nil {
		return nil, fmt.Errorf("%w: HTTP step: %w", ErrConfig, err)
	}
	key, err := llm.LookupKey(c.Env, c.KeyEnv)
	if err != nil {
		return nil, fmt.Errorf("%w: HTTP step: %w", ErrConfig, err)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultStepTimeout
	}
	if c.MaxResponse == 0 {
		c.MaxResponse = DefaultMaxStepResponse
	}
	req := llm.Request{BaseURL: c.URL, Key: key, Model: c.Model, System: stepSystemPrompt,
		MaxTokens: c.MaxTokens, Timeout: c.Timeout, MaxResponse: int64(c.MaxResponse)}
	return func(ctx context.Context, in StepInput) (StepResult, error) {
		return httpInvoke(ctx, req, in)
	}, nil
}

func httpInvoke(ctx context.Context, req llm.Request, in StepInput) (StepResult, error) {
	body, err := StepRequest(in)
	if err != nil {
		return StepResult{}, fmt.Errorf("%w: request: %w", ErrStepHTTP, err)
	}
	req.User = string(body)
	rep, err := llm.OpenAIChat(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return StepResult{}, fmt.Errorf("%w: %s: %w", ErrStepHTTP, req.Model, ctx.Err())
		}
		return StepResult{}, fmt.Errorf("%w: %s: %w", ErrStepHTTP, req.Model, err)
	}
	res, err := ParseStepResponse(llm.StripFence([]byte(rep.Text)))
	if err == nil && res.Cost != 0 {
		err = fmt.Errorf("%w: the model may not set \"cost\"", ErrStepResponse)
	}
	if err != nil {
		return StepResult{}, fmt.Errorf("%w: %s answered outside tine-step/1: %w", ErrStepHTTP, req.Model, err)
	}
	res.Usage = Usage{Input: rep.Usage.Input, CacheRead: rep.Usage.CacheRead, Output: rep.Usage.Output}
	res.Model, res.Provider = req.Model, StepHTTPProvider
	return res, nil
}
