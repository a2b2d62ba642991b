package llm

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic API constants.
const (
	// AnthropicBaseURL is the Anthropic API's base URL.
	AnthropicBaseURL = "https://api.anthropic.com"
	// AnthropicVersion is the anthropic-version header the client sends.
	AnthropicVersion = "2023-06-01"
)

type anthropicRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    string          `json:"system,omitempty"`
	Messages  []openAIMessage `json:"messages"`
}

type anthropicResponse struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      *struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// AnthropicMessages sends r to Anthropic's messages API (POST
// {BaseURL}/v1/messages with x-api-key and anthropic-version headers).
// The answer is the concatenated text blocks; a refusal, a reply cut at
// max_tokens or no text is ErrNoAnswer.
func AnthropicMessages(ctx context.Context, r Request) (Reply, error) {
	if err := r.check(); err != nil {
		return Reply{}, err
	}
	if r.MaxTokens <= 0 {
		return Reply{}, fmt.Errorf("%w: Anthropic requires max_tokens > 0", ErrBadRequest)
	}
	body := anthropicRequest{Model: r.Model, MaxTokens: r.MaxTokens, System: r.System,
		Messages: []openAIMessage{{Role: "user", Content: r.User}}}
	h := http.Header{}
	h.Set("x-api-key", r.Key)
	h.Set("anthropic-version", AnthropicVersion)
	var resp anthropicResponse
	if err := exchange(ctx, r, "/v1/messages", h, body, &resp); err != nil {
		return Reply{}, err
	}
	return resp.reply()
}

func (resp *anthropicResponse) reply() (Reply, error) {
	if resp.Type != "message" {
		return Reply{}, fmt.Errorf("%w: type %.40q, want \"message\"", ErrMalformed, resp.Type)
	}
	out := Reply{ID: resp.ID, Status: resp.StopReason}
	if u := resp.Usage; u != nil {
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadInputTokens < 0 || u.CacheCreationInputTokens < 0 {
			return Reply{}, fmt.Errorf("%w: negative token counts in usage", ErrMalformed)
		}
		// Anthropic's input_tokens already excludes the cached tokens.
		out.Usage = Usage{Input: u.InputTokens, CacheRead: u.CacheReadInputTokens,
			CacheWrite: u.CacheCreationInputTokens, Output: u.OutputTokens}
	}
	var text strings.Builder
	for _, c := range resp.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	switch {
	case resp.StopReason == "refusal":
		return out, fmt.Errorf("%w: the model refused (stop_reason refusal)", ErrNoAnswer)
	case resp.StopReason == "max_tokens":
		return out, fmt.Errorf("%w: the reply was cut at max_tokens", ErrNoAnswer)
	case strings.TrimSpace(text.String()) == "":
		return out, fmt.Errorf("%w: the reply has no text (stop_reason %.40q)", ErrNoAnswer, resp.StopReason)
	}
	out.Text = text.String()
	return out, nil
}
