package llm

import (
	"context"
	"fmt"
	"net/http"
)

// OpenAIBaseURL is the OpenAI API's base URL.
const OpenAIBaseURL = "https://api.openai.com/v1"

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []openAIMessage `json:"messages"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
}

type openAIResponse struct {
	ID      string `json:"id"`
	Choices []struct {
		Message *struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

// OpenAIChat sends r to an OpenAI-compatible chat completions endpoint
// (POST {BaseURL}/chat/completions with a bearer key): a system and a
// user message, max_completion_tokens and reasoning_effort when set. The
// answer is the first choice's content; a refusal, a reply cut at the
// token limit or empty content is ErrNoAnswer.
func OpenAIChat(ctx context.Context, r Request) (Reply, error) {
	if err := r.check(); err != nil {
		return Reply{}, err
	}
	body := openAIRequest{Model: r.Model, MaxCompletionTokens: r.MaxTokens, ReasoningEffort: r.ReasoningEffort}
	if r.System != "" {
		body.Messages = append(body.Messages, openAIMessage{Role: "system", Content: r.System})
	}
	body.Messages = append(body.Messages, openAIMessage{Role: "user", Content: r.User})
	h := http.Header{}
	h.Set("Authorization", "Bearer "+r.Key)
	var resp openAIResponse
	if err := exchange(ctx, r, "/chat/completions", h, body, &resp); err != nil {
		return Reply{}, err
	}
	return resp.reply()
}

func (resp *openAIResponse) reply() (Reply, error) {
	if len(resp.Choices) == 0 || resp.Choices[0].Message == nil {
		return Reply{}, fmt.Errorf("%w: no choices in the chat completion", ErrMalformed)
	}
	c := resp.Choices[0]
	out := Reply{ID: resp.ID, Status: c.FinishReason}
	if u := resp.Usage; u != nil {
		var cached int64
		if u.PromptTokensDetails != nil {
			cached = u.PromptTokensDetails.CachedTokens
		}
		if u.PromptTokens < 0 || u.CompletionTokens < 0 || cached < 0 || cached > u.PromptTokens {
			return Reply{}, fmt.Errorf("%w: inconsistent usage (prompt %d, cached %d, completion %d)", ErrMalformed, u.PromptTokens, cached, u.CompletionTokens)
		}
		out.Usage = Usage{Input: u.PromptTokens - cached, CacheRead: cached, Output: u.CompletionTokens}
	}
	switch {
	case c.Message.Refusal != nil && *c.Message.Refusal != "":
		return out, fmt.Errorf("%w: the model refused: %s", ErrNoAnswer, quote([]byte(*c.Message.Refusal), ""))
	case c.FinishReason == "length":
		return out, fmt.Errorf("%w: the reply was cut at the token limit (finish_reason length)", ErrNoAnswer)
	case c.Message.Content == nil || *c.Message.Content == "":
		return out, fmt.Errorf("%w: the reply has no text (finish_reason %.40q)", ErrNoAnswer, c.FinishReason)
	}
	out.Text = *c.Message.Content
	return out, nil
}
