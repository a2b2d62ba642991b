package runs

import (
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// How a span becomes an event: the GenAI semantic conventions (current and
// legacy attribute names) and OpenInference's, read into the SPEC's
// conventional event fields (kind, model, provider, tool, usage, error,
// time_unix, duration, span_id, trace_id, unresolved_span_refs), the
// prompt and completion (or a tool call's arguments and result) into the
// input and output blobs, and everything else of the span kept: its other
// attributes under "attributes", its name, kind, scope, service and
// status under "otel".

// otlpModelOps are gen_ai.operation.name values of a model call.
var otlpModelOps = map[string]bool{"chat": true, "text_completion": true, "generate_content": true, "embeddings": true}

// otlpUsage maps token attributes to usage dimensions (SPEC §1.5.2),
// first present name wins per dimension. OTLP gives no cache-write TTL;
// cache writes count as 5-minute writes, Anthropic's default.
var otlpUsage = []struct {
	dim   string
	names []string
}{
	{"input", []string{"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"}},
	{"output", []string{"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"}},
	{"cache_read", []string{"gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens", "llm.token_count.prompt_details.cache_read"}},
	{"cache_write_5m", []string{"gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_creation_input_tokens", "gen_ai.usage.cache_write_input_tokens", "llm.token_count.prompt_details.cache_write"}},
	{"reasoning", []string{"gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens", "llm.token_count.completion_details.reasoning"}},
	{"total", []string{"gen_ai.usage.total_tokens", "llm.token_count.total"}},
}

// otlpInputs and otlpOutputs name the attributes holding a span's input
// and output, in order of preference, per event kind.
var (
	otlpToolInputs   = []string{"gen_ai.tool.call.arguments", "input.value"}
	otlpToolOutputs  = []string{"gen_ai.tool.call.result", "output.value"}
	otlpOtherInputs  = []string{"gen_ai.input.messages", "gen_ai.prompt", "input.value"}
	otlpOtherOutputs = []string{"gen_ai.output.messages", "gen_ai.completion", "output.value"}
)

// otlpKind is the event kind of a span.
func otlpKind(a *spanAttrs) string {
	switch op := a.str("gen_ai.operation.name"); {
	case op == "execute_tool":
		return "tool"
	case otlpModelOps[op]:
		return "model"
	case op == "invoke_agent" || op == "create_agent":
		return "subagent"
	case op != "":
		return op
	}
	switch k := strings.ToUpper(a.str("openinference.span.kind")); k {
	case "LLM", "EMBEDDING":
		return "model"
	case "TOOL":
		return "tool"
	case "AGENT":
		return "subagent"
	case "":
	default:
		return strings.ToLower(k)
	}
	switch {
	case a.has("gen_ai.tool.name"):
		return "tool"
	case a.has("gen_ai.system") || a.has("gen_ai.provider.name") || a.has("gen_ai.request.model") || a.has("llm.model_name"):
		return "model"
	}
	return "span"
}

// spanAttrs looks attributes up by name and remembers which were used
// for a conventional field, so the rest stay in "attributes".
type spanAttrs struct {
	list []objects.Member
	used map[string]bool
}

// get returns attribute k.
func (a *spanAttrs) get(k string) (objects.Value, bool) {
	for _, m := range a.list {
		if m.Key == k {
			return m.Value, true
		}
	}
	return objects.Value{}, false
}

// has reports whether attribute k is present.
func (a *spanAttrs) has(k string) bool { _, ok := a.get(k); return ok }

// str returns attribute k when it is a string, else "".
func (a *spanAttrs) str(k string) string {
	if v, ok := a.get(k); ok && v.Kind == objects.KindString {
		return v.Str
	}
	return ""
}

// take returns the first present string of names and marks it used.
func (a *spanAttrs) take(names ...string) string {
	for _, k := range names {
		if s := a.str(k); s != "" {
			a.used[k] = true
			return s
		}
	}
	return ""
}

// text returns the first present attribute of names as text (structured
// values as canonical JSON) and marks it used.
func (a *spanAttrs) text(names ...string) (string, bool, error) {
	for _, k := range names {
		v, ok := a.get(k)
		if !ok || v.Kind == objects.KindNull {
			continue
		}
		a.used[k] = true
		if v.Kind == objects.KindString {
			return v.Str, true, nil
		}
		b, err := objects.CanonV3(v)
		if err != nil {
			return "", false, fmt.Errorf("attribute %q: %w", k, err)
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// rest is the unused attributes.
func (a *spanAttrs) rest() objects.Value {
	var ms []objects.Member
	for _, m := range a.list {
		if !a.used[m.Key] {
			ms = append(ms, m)
		}
	}
	return objects.ObjectValue(ms...)
}

// otlpSpec is the import spec (an event payload with local-id links and
// text blob specs, importer.spec) of span sp. parents are the local ids or
// run event oids it follows; causal the local ids of its placed links;
// unresolved the span ids it names that the export does not hold.
func otlpSpec(sp *otlpSpan, parents, causal, unresolved []string) (objects.Value, error) {
	a := &spanAttrs{list: sp.attrs, used: map[string]bool{}}
	kind := otlpKind(a)
	a.used["gen_ai.operation.name"], a.used["openinference.span.kind"] = true, true
	ms := []objects.Member{
		{Key: "id", Value: objects.String(otlpKey(sp.trace, sp.id))},
		{Key: "parents", Value: StringsValue(parents)},
		{Key: "kind", Value: objects.String(kind)},
		{Key: "span_id", Value: objects.String(sp.id)},
		{Key: "trace_id", Value: objects.String(sp.trace)},
	}
	add := func(k string, v objects.Value) { ms = append(ms, objects.Member{Key: k, Value: v}) }
	if len(causal) > 0 {
		add("causal", StringsValue(causal))
	}
	if len(unresolved) > 0 {
		add("unresolved_span_refs", StringsValue(unresolved))
	}
	if m := a.take("gen_ai.response.model", "gen_ai.request.model", "llm.model_name"); m != "" {
		add("model", objects.String(m))
		a.used["gen_ai.request.model"], a.used["gen_ai.response.model"] = false, false
	}
	if p := a.take("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"); p != "" {
		add("provider", objects.String(p))
	}
	if t := a.take("gen_ai.tool.name", "tool.name"); t != "" {
		add("tool", objects.String(t))
	}
	if id := a.take("gen_ai.tool.call.id", "tool_call.id"); id != "" {
		add("tool_call_id", objects.String(id))
	}
	usage, err := otlpUsageValue(a)
	if err != nil {
		return objects.Value{}, err
	}
	if len(usage) > 0 {
		add("usage", objects.ObjectValue(usage...))
	}
	if sp.hasStart && sp.start > 0 {
		add("time_unix", objects.Float(float64(sp.start)/1e9))
		if sp.hasEnd {
			if sp.end < sp.start {
				return objects.Value{}, fmt.Errorf("endTimeUnixNano is before startTimeUnixNano")
			}
			add("duration", objects.Float(float64(sp.end-sp.start)/1e9))
		}
	}
	if sp.statusCode == "error" {
		msg := sp.statusMessage
		if msg == "" {
			msg = a.str("error.type")
		}
		if msg == "" {
			msg = "error"
		}
		add("error", objects.String(msg))
	}
	ins, outs := otlpOtherInputs, otlpOtherOutputs
	if kind == "tool" {
		ins, outs = otlpToolInputs, otlpToolOutputs
	}
	in, hasIn, err := a.text(ins...)
	if err != nil {
		return objects.Value{}, err
	}
	out, hasOut, err := a.text(outs...)
	if err != nil {
		return objects.Value{}, err
	}
	if !hasIn {
		in, hasIn, err = otlpEventText(sp, "gen_ai.content.prompt", "gen_ai.prompt", otlpMessageEvents)
	}
	if err == nil && !hasOut {
		out, hasOut, err = otlpEventText(sp, "gen_ai.content.completion", "gen_ai.completion", map[string]bool{"gen_ai.choice": true})
	}
	if err != nil {
		return objects.Value{}, err
	}
	if hasIn {
		add("input", objects.String(in))
	}
	if hasOut {
		add("output", objects.String(out))
	}
	add("attributes", a.rest())
	add("otel", otlpMeta(sp))
	return objects.ObjectValue(ms...), nil
}

// otlpMessageEvents are the span events of the event-based GenAI
// conventions that carry the prompt.
var otlpMessageEvents = map[string]bool{
	"gen_ai.system.message": true, "gen_ai.user.message": true,
	"gen_ai.assistant.message": true, "gen_ai.tool.message": true,
}

// otlpEventText reads a span's text from its events: the legacy event
// named legacy (its attribute attr), else the events named in set, as a
// JSON list of {"event", "attributes"}.
func otlpEventText(sp *otlpSpan, legacy, attr string, set map[string]bool) (string, bool, error) {
	var list []objects.Value
	for _, ev := range sp.events {
		if ev.name == legacy {
			for _, m := range ev.attrs {
				if m.Key == attr && m.Value.Kind == objects.KindString {
					return m.Value.Str, true, nil
				}
			}
		}
		if set[ev.name] {
			list = append(list, objects.ObjectValue(
				objects.Member{Key: "event", Value: objects.String(ev.name)},
				objects.Member{Key: "attributes", Value: objects.ObjectValue(ev.attrs...)}))
		}
	}
	if len(list) == 0 {
		return "", false, nil
	}
	b, err := objects.CanonV3(objects.Array(list...))
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// otlpUsageValue reads the token counts.
func otlpUsageValue(a *spanAttrs) ([]objects.Member, error) {
	var ms []objects.Member
	for _, u := range otlpUsage {
		for _, k := range u.names {
			v, ok := a.get(k)
			if !ok {
				continue
			}
			if v.Kind != objects.KindInt || v.Big != nil || v.Int < 0 {
				return nil, fmt.Errorf("attribute %q: want a non-negative integer token count", k)
			}
			a.used[k] = true
			ms = append(ms, objects.Member{Key: u.dim, Value: v})
			break
		}
	}
	return ms, nil
}

// otlpMeta is the "otel" member: what the span says about itself.
func otlpMeta(sp *otlpSpan) objects.Value {
	var ms []objects.Member
	add := func(k, v string) {
		if v != "" {
			ms = append(ms, objects.Member{Key: k, Value: objects.String(v)})
		}
	}
	add("name", sp.name)
	add("span_kind", sp.kind)
	add("parent_span_id", sp.parent)
	add("scope", sp.scope)
	add("service", sp.service)
	add("status", sp.statusCode)
	if sp.statusCode != "error" {
		add("status_message", sp.statusMessage)
	}
	return objects.ObjectValue(ms...)
}
