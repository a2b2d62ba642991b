package gates

import (
	"strings"

	"github.com/tinehq/tine/objects"
)

// HookContinuationPrefix starts every block reason, so the user-prompt
// hook can tell the gate's own continuation from a human's goal (SPEC §7:
// synthetic feedback never replaces the goal).
const HookContinuationPrefix = "[tine gate continuation]\n"

// The intents of a hook answer (SPEC §7 Response JSON shapes).
const (
	HookNoop    = "noop"    // {}: nothing to say
	HookContext = "context" // extra context for the agent
	HookDeny    = "deny"    // refuse one tool call
	HookBlock   = "block"   // refuse completion: keep working
	HookAllow   = "allow"   // completion accepted
	HookHuman   = "human"   // stop the agent: a human must decide
	HookNotice  = "notice"  // a system message only (pre-compact)
)

// HookResponse is one hook answer: the intent and the adapter's JSON.
type HookResponse struct {
	Intent string
	// JSON is the object the CLI reads on stdout, already redacted.
	JSON objects.Value
}

// Bytes encodes the answer as one line of JSON (canonical, so stable).
func (r HookResponse) Bytes() []byte {
	b, err := objects.CanonV3(r.JSON)
	if err != nil {
		// Every string here went through redactText, which yields valid
		// UTF-8; should encoding still fail, a fixed stop still answers.
		return []byte(`{"continue":false,"stopReason":"tine gate hook could not encode its answer","systemMessage":"tine gate hook could not encode its answer"}`)
	}
	return append(b, '\n')
}

// redactText scrubs credentials from hook text and makes it valid UTF-8.
func redactText(s string) string {
	return string(objects.RedactBlob([]byte(strings.ToValidUTF8(s, "\uFFFD"))))
}

// hookStr is a redacted string value.
func hookStr(s string) objects.Value { return objects.String(redactText(s)) }

// hookNoop is {}.
func hookNoop() HookResponse { return HookResponse{Intent: HookNoop, JSON: jdObject()} }

// hookContextResponse adds context under the adapter's native event name.
func hookContextResponse(native, text string) HookResponse {
	return HookResponse{Intent: HookContext, JSON: jdObject(jdKV("hookSpecificOutput", jdObject(
		jdKV("hookEventName", objects.String(native)), jdKV("additionalContext", hookStr(text)))))}
}

// hookNotice is a bare system message.
func hookNotice(text string) HookResponse {
	return HookResponse{Intent: HookNotice, JSON: jdObject(jdKV("systemMessage", hookStr(text)))}
}

// hookDenyResponse refuses a tool call.
func hookDenyResponse(adapter, reason string) HookResponse {
	if adapter == HookAdapterGemini {
		return HookResponse{Intent: HookDeny, JSON: jdObject(jdKV("decision", objects.String("deny")), jdKV("reason", hookStr(reason)))}
	}
	return HookResponse{Intent: HookDeny, JSON: jdObject(jdKV("hookSpecificOutput", jdObject(
		jdKV("hookEventName", objects.String("PreToolUse")),
		jdKV("permissionDecision", objects.String("deny")),
		jdKV("permissionDecisionReason", hookStr(reason)))))}
}

// hookBlockResponse refuses completion and tells the agent what to do.
func hookBlockResponse(adapter, reason string) HookResponse {
	decision := "block"
	if adapter == HookAdapterGemini {
		decision = "deny"
	}
	return HookResponse{Intent: HookBlock, JSON: jdObject(jdKV("decision", objects.String(decision)),
		jdKV("reason", hookStr(HookContinuationPrefix+reason)))}
}

// hookAllowResponse accepts completion.
func hookAllowResponse(adapter, summary string) HookResponse {
	if adapter == HookAdapterGemini {
		return HookResponse{Intent: HookAllow, JSON: jdObject(jdKV("decision", objects.String("allow")), jdKV("systemMessage", hookStr(summary)))}
	}
	return HookResponse{Intent: HookAllow, JSON: jdObject(jdKV("continue", objects.Bool(true)), jdKV("systemMessage", hookStr(summary)))}
}

// hookHumanResponse stops the agent for a human decision; it is also the
// fail-closed answer of every event but pre-tool.
func hookHumanResponse(reason string) HookResponse {
	return HookResponse{Intent: HookHuman, JSON: jdObject(jdKV("continue", objects.Bool(false)),
		jdKV("stopReason", hookStr(reason)), jdKV("systemMessage", hookStr(reason)))}
}

// HookFailClosed is the answer for an internal error (SPEC §7, §10): a deny
// on pre-tool, a stop for a human on every other event. It is always valid
// JSON, whatever the adapter or event.
func HookFailClosed(adapter, event, reason string) HookResponse {
	if event == HookEventPreTool {
		return hookDenyResponse(adapter, "tine gate hook failed closed: "+reason)
	}
	return hookHumanResponse("tine gate hook failed closed: " + reason)
}
