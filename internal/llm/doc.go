// Package llm holds tine's two model HTTP clients, one per API: an
// OpenAI-compatible chat completions client (POST {base}/chat/completions,
// bearer key) and Anthropic's messages client (POST {base}/v1/messages,
// x-api-key and anthropic-version headers). Gate rubric evaluators and the
// loop's HTTP step both call them.
//
// Every call is bounded: a per-request timeout, a cap on the response
// bytes read, and a strict reading of the reply (a missing choice, a
// refusal, a truncated or empty answer is an error, never an empty
// success). The API key is read from an environment variable the caller
// names; it is sent only in the request header and scrubbed from any
// server text quoted in an error, never stored or logged.
package llm
