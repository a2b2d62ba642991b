package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/httplimit"
	"github.com/tinehq/tine/internal/textsafe"
)

// Bounds of one request.
const (
	// DefaultTimeout bounds one request when Request.Timeout is 0.
	DefaultTimeout = 60 * time.Second
	// DefaultMaxResponse bounds the response body when
	// Request.MaxResponse is 0.
	DefaultMaxResponse = 4 << 20
	// errorBodyQuote is how much of an error body an error message quotes.
	errorBodyQuote = 300
	// maxErrorText bounds the text of an error a call returns, in bytes:
	// net/http quotes a malformed status or header line whole (up to the
	// header bound), and the error ends up in an event and on a terminal.
	maxErrorText = 1024
)

// Errors of a call. Transient reports which of them a caller may retry.
var (
	// ErrNoKey means the environment variable naming the API key is unset
	// or empty.
	ErrNoKey = errors.New("no API key")
	// ErrBadURL means a base URL that is not an absolute http(s) URL
	// without credentials, query or fragment.
	ErrBadURL = errors.New("bad base URL")
	// ErrBadRequest means request options the API cannot take (a
	// missing model, an Anthropic call without max tokens).
	ErrBadRequest = errors.New("bad model request")
	// ErrStatus means the server answered with a non-2xx status; the
	// error is a *StatusError.
	ErrStatus = errors.New("HTTP error status")
	// ErrTimeout means the request did not complete within its timeout.
	ErrTimeout = errors.New("request timed out")
	// ErrTransport means the request could not be sent or the response not
	// read (connection refused, reset, DNS).
	ErrTransport = errors.New("request failed")
	// ErrTooLarge means the response body exceeded its bound.
	ErrTooLarge = errors.New("response too large")
	// ErrMalformed means a 2xx response that is not the API's JSON shape.
	ErrMalformed = errors.New("malformed response")
	// ErrNoAnswer means a well-formed response without a usable answer: a
	// refusal, a reply cut at the token limit, or empty text. It is
	// terminal: asking again spends tokens for the same outcome.
	ErrNoAnswer = errors.New("no usable answer")
)

// StatusError is a non-2xx HTTP answer.
type StatusError struct {
	// Code is the HTTP status code.
	Code int
	// Body is the start of the response body, key scrubbed.
	Body string
}

// Error implements error.
func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Code, e.Body)
}

// Unwrap makes errors.Is(err, ErrStatus) true.
func (e *StatusError) Unwrap() error { return ErrStatus }

// Transient reports whether err may succeed on a retry: a timeout, a
// transport failure, HTTP 408, 429 or any 5xx.
func Transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusRequestTimeout || se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	return errors.Is(err, ErrTimeout) || errors.Is(err, ErrTransport)
}

// Request is one single-turn model call.
type Request struct {
	// BaseURL is the API's base: "https://api.openai.com/v1" for OpenAI
	// (the client appends /chat/completions), "https://api.anthropic.com"
	// for Anthropic (the client appends /v1/messages).
	BaseURL string
	// Key is the API key (see LookupKey).
	Key string
	// Model names the model.
	Model string
	// System is the system prompt; User the one user message.
	System, User string
	// MaxTokens bounds the answer; 0 leaves it to the server (OpenAI
	// only; Anthropic requires it).
	MaxTokens int
	// ReasoningEffort is sent as reasoning_effort when set (OpenAI only).
	ReasoningEffort string
	// Timeout bounds the whole request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponse bounds the response body in bytes; 0 means
	// DefaultMaxResponse.
	MaxResponse int64
	// Client sends the request; nil means a client that follows no
	// redirects (a redirect could carry the key to another host).
	Client *http.Client
}

// Usage is a reply's token counts in exclusive dimensions: Input excludes
// the cached input tokens counted in CacheRead and CacheWrite, so the
// four add up to what the call consumed.
type Usage struct {
	Input, CacheRead, CacheWrite, Output int64
}

// Total is every token the call consumed.
func (u Usage) Total() int64 { return u.Input + u.CacheRead + u.CacheWrite + u.Output }

// Reply is a model's answer.
type Reply struct {
	// Text is the answer's text.
	Text string
	// ID is the provider's response id ("" when absent).
	ID string
	// Status is the finish or stop reason the provider gave.
	Status string
	// Usage is what the call consumed (zero when the provider sent none).
	Usage Usage
}

// LookupKey returns the value of the environment variable name, reading
// env ("KEY=value" entries, the last one winning, as exec does) or, when
// env is nil, the process environment. An unset or empty variable is
// ErrNoKey naming the variable, never the value.
func LookupKey(env []string, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: no environment variable named for the API key", ErrNoKey)
	}
	var v string
	if env == nil {
		v = lookupProcessEnv(name)
	} else {
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
	}
	if v == "" {
		return "", fmt.Errorf("%w: environment variable %s is not set; export the key there", ErrNoKey, name)
	}
	return v, nil
}

// CheckBaseURL refuses a base URL that is not absolute http(s), or that
// carries credentials, a query or a fragment (which would end up in error
// messages and logs).
func CheckBaseURL(base string) error {
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return fmt.Errorf("%w %q: %w", ErrBadURL, base, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("%w %q: want an absolute http:// or https:// URL", ErrBadURL, base)
	case u.User != nil:
		return fmt.Errorf("%w: credentials in the URL are refused; name the key's environment variable instead", ErrBadURL)
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(base, "?"):
		return fmt.Errorf("%w %q: a query or fragment is not allowed", ErrBadURL, base)
	}
	return nil
}

// defaultClient never follows redirects: Go forwards custom headers such
// as x-api-key to the redirect's host, so a redirect could hand the key to
// another server. A 3xx is reported as a StatusError instead. Its
// transport is net/http's default (proxies from the environment, HTTP/2,
// the usual dial and TLS timeouts) with the header block of an answer
// bounded to httplimit.MaxReplyHeader instead of 1 MiB: the endpoint is
// whatever a loop spec or gate contract names, and may be hostile.
var defaultClient = &http.Client{
	Transport:     replyTransport(),
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// replyTransport is net/http's default transport with answers' header
// blocks bounded to httplimit.MaxReplyHeader.
func replyTransport() http.RoundTripper {
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // replaced by a program embedding the package: a fresh one
		return &http.Transport{Proxy: http.ProxyFromEnvironment, MaxResponseHeaderBytes: httplimit.MaxReplyHeader}
	}
	tr := dt.Clone()
	tr.MaxResponseHeaderBytes = httplimit.MaxReplyHeader
	return tr
}

// post sends body as JSON to endpoint under the request's bounds and
// returns the bounded response body of a 2xx answer.
func post(ctx context.Context, r Request, endpoint string, header http.Header, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%w: encode request: %w", ErrTransport, err)
	}
	timeout, limit := r.Timeout, r.MaxResponse
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if limit <= 0 {
		limit = DefaultMaxResponse
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrBadURL, endpoint, err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	client := r.Client
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, classify(ctx, tctx, timeout, endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, classify(ctx, tctx, timeout, endpoint, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{Code: resp.StatusCode, Body: quote(data, r.Key)}
	}
	if int64(len(data)) > limit {
		return nil, showable(fmt.Errorf("%w: POST %s answered more than %d bytes", ErrTooLarge, endpoint, limit))
	}
	return data, nil
}

// classify turns a client error into ErrTimeout, the caller's own
// cancellation, or ErrTransport; the URL is the endpoint, never the key.
// The transport's words can quote what the server sent (a malformed
// status or header line), so they are shown through showable.
func classify(parent, tctx context.Context, timeout time.Duration, endpoint string, err error) error {
	switch {
	case parent.Err() != nil:
		return parent.Err()
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		return showable(fmt.Errorf("%w: POST %s took longer than %s", ErrTimeout, endpoint, timeout))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return showable(fmt.Errorf("%w: POST %s: %w", ErrTransport, endpoint, err))
}

// showable returns err as it is when its text is printable UTF-8 of at
// most maxErrorText bytes; otherwise an error wrapping err (errors.Is and
// errors.As see it) whose text is textsafe.Clip's: control and format
// characters and invalid UTF-8 escaped (\x1b, \u202e, \xff), cut at
// maxErrorText bytes with a note of how many were left out.
func showable(err error) error {
	msg := err.Error()
	if len(msg) <= maxErrorText && textsafe.Showable(msg) {
		return err
	}
	return &clippedError{msg: textsafe.Clip(msg, maxErrorText), err: err}
}

// clippedError is showable's error: err, shown as msg.
type clippedError struct {
	msg string
	err error
}

func (e *clippedError) Error() string { return e.msg }
func (e *clippedError) Unwrap() error { return e.err }

// quote is the start of an error body on one line, with the key scrubbed
// in case the server echoes it, its runs of white space folded to one
// space, control and format characters and invalid UTF-8 escaped, and at
// most errorBodyQuote bytes of it shown (textsafe.Clip).
func quote(b []byte, key string) string {
	s := string(b)
	if key != "" {
		s = strings.ReplaceAll(s, key, "[REDACTED]")
	}
	return textsafe.Clip(strings.Join(strings.Fields(s), " "), errorBodyQuote)
}

// decodeStrict decodes one JSON value and refuses trailing data.
func decodeStrict(data []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the JSON object", ErrMalformed)
	}
	return nil
}

// joinURL appends path to base without doubling the slash.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + path
}

// StripFence trims b and removes one surrounding ``` fence (its first line
// may name a language, as in ```json), since models often wrap JSON in one.
// Anything else is returned trimmed, for the caller's strict parser to judge.
func StripFence(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if !bytes.HasPrefix(b, []byte("```")) || !bytes.HasSuffix(b, []byte("```")) {
		return b
	}
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || len(b) < nl+4 {
		return b
	}
	return bytes.TrimSpace(b[nl+1 : len(b)-3])
}

// check refuses a request no API would answer: a bad base URL, no key or
// no model.
func (r Request) check() error {
	if err := CheckBaseURL(r.BaseURL); err != nil {
		return err
	}
	if r.Key == "" {
		return fmt.Errorf("%w: no key given", ErrNoKey)
	}
	if r.Model == "" {
		return fmt.Errorf("%w: no model given", ErrBadRequest)
	}
	return nil
}

// exchange posts body to path under r.BaseURL with headers h and decodes
// the reply strictly into resp: the one round trip of every API.
func exchange(ctx context.Context, r Request, path string, h http.Header, body, resp any) error {
	data, err := post(ctx, r, joinURL(r.BaseURL, path), h, body)
	if err != nil {
		return err
	}
	return decodeStrict(data, resp)
}
