package agents

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxErrorText bounds the text of one refusal. The SDK's schema check
// quotes the offending argument whole, so a 1 MiB event over its bound
// would otherwise come back as a 1 MiB error; the start (which names the
// argument) and the end (which names the bound) are kept.
const MaxErrorText = 1024

// boundErrors is middleware that cuts the text of every error the server
// answers with, a tool error or a protocol one (an unknown tool's name is
// quoted too), to MaxErrorText bytes.
func boundErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var wire *jsonrpc.Error
		if errors.As(err, &wire) && len(wire.Message) > MaxErrorText {
			cp := *wire
			cp.Message = elide(cp.Message, MaxErrorText)
			err = &cp
		}
		if tr, ok := res.(*mcp.CallToolResult); ok && tr != nil && tr.IsError {
			for i, c := range tr.Content {
				if tc, ok := c.(*mcp.TextContent); ok && len(tc.Text) > MaxErrorText {
					cp := *tc
					cp.Text = elide(cp.Text, MaxErrorText)
					tr.Content[i] = &cp
				}
			}
		}
		return res, err
	}
}

// elide cuts s to at most max bytes by replacing its middle with a note
// of how much was left out, on rune boundaries.
func elide(s string, max int) string {
	keep := (max - 40) / 2
	head, tail := keep, len(s)-keep
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s …(%d bytes cut)… %s", s[:head], tail-head, s[tail:])
}
