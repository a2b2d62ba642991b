package objects

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestMetricsVectors(t *testing.T) { runPayloadCases(t, metricsVectors) }

// metricsVectors transcribes 15b-metrics and the metrics case of 99-repair
// (op event.metrics).
var metricsVectors = []payloadCase{
	{"metrics.cost.absent-defaults-to-zero", "event.metrics", env(hEvent, `{"kind":"model"}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.cost.negative", "event.metrics", env(hEvent, `{"cost":-1,"kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"metrics.cost.numeric-string", "event.metrics", env(hEvent, `{"cost":"1.5","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.duration.negative", "event.metrics", env(hEvent, `{"duration":-0.5,"kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"metrics.duration.numeric-string-at-128-chars", "event.metrics", env(hEvent, `{"duration":"1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.meter.decimal-finite-but-not-a-double", "event.metrics", env(hEvent, `{"cost":"1e999999999","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"metrics.meter.string-at-129-chars", "event.metrics", env(hEvent, `{"duration":"1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-too-long"},
	{"metrics.time-unix.negative", "event.metrics", env(hEvent, `{"kind":"model","time_unix":-1}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.time-unix.not-numeric", "event.metrics", env(hEvent, `{"kind":"model","time_unix":"later"}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"metrics.usage.falsy-empty-list", "event.metrics", env(hEvent, `{"kind":"model","usage":[]}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.falsy-empty-string", "event.metrics", env(hEvent, `{"kind":"model","usage":""}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.falsy-false", "event.metrics", env(hEvent, `{"kind":"model","usage":false}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.falsy-null", "event.metrics", env(hEvent, `{"kind":"model","usage":null}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.falsy-zero", "event.metrics", env(hEvent, `{"kind":"model","usage":0}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.non-token-dimension-fractional", "event.metrics", env(hEvent, `{"kind":"model","usage":{"latency_ms":1.5}}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.token-dimension-at-2-53", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":9007199254740992}}`),
		nil, nil, nil, "",
		nil, "", "metrics.token-dimension-unsafe"},
	{"metrics.usage.token-dimension-at-max-safe", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":9007199254740991}}`),
		nil, nil, nil, "",
		nil, "", ""},
	{"metrics.usage.token-dimension-fractional", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":1.5}}`),
		nil, nil, nil, "",
		nil, "", "metrics.token-dimension-unsafe"},
	{"metrics.usage.truthy-non-object", "event.metrics", env(hEvent, `{"kind":"model","usage":5}`),
		nil, nil, nil, "",
		nil, "", "metrics.usage-not-object"},
	{"metrics.usage.value-boolean", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":true}}`),
		nil, nil, nil, "",
		nil, "", "metrics.usage-value-not-numeric"},
	{"metrics.usage.value-negative", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":-1}}`),
		nil, nil, nil, "",
		nil, "", "metrics.meter-not-finite"},
	{"metrics.usage.value-string", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":"5"}}`),
		nil, nil, nil, "",
		nil, "", "metrics.usage-value-not-numeric"},
	{"repair.usage-string-coerced-to-a-number", "event.metrics", env(hEvent, `{"kind":"model","usage":{"input":"5"}}`),
		nil, nil, nil, "",
		nil, "", "metrics.usage-value-not-numeric"},
}

// meterStrings pairs numeric-string meters with the reference's verdict
// (Python's Decimal(str) rules), as a non-negative meter (cost) and as a
// signed one (time_unix). "ok" accepts, anything else is the reason.
var meterStrings = []struct{ s, cost, timeUnix string }{
	{"1_000", "ok", "ok"},
	{" 1.5 ", "ok", "ok"},
	{"1 2", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"Infinity", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"-inf", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"NaN", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"sNaN5", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"-0", "ok", "ok"},
	{"-0.0", "ok", "ok"},
	{"-1e-999999", "metrics.meter-not-finite", "ok"}, // below zero although its float is -0
	{"1e-1999999999999999998", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"1e-1999999999999999997", "ok", "ok"},
	{"0e1000000000000000000", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"0e999999999999999999", "ok", "ok"},
	{"\u0661\u0662", "ok", "ok"},
	{"\u0661.\u0665", "ok", "ok"},
	{"\u0b67\u0b68", "ok", "ok"},
	{"\uff11", "ok", "ok"},
	{"\U0001d7d9", "ok", "ok"},
	{"\u0661\u066b\u0665", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{strings.Repeat("1", 128), "ok", "ok"},
	{strings.Repeat("1", 129), "metrics.meter-too-long", "metrics.meter-too-long"},
	{strings.Repeat("\u00e9", 129), "metrics.meter-too-long", "metrics.meter-too-long"},
	{"1.7976931348623157e308", "ok", "ok"},
	{"1.7976931348623159e308", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"-1e308", "metrics.meter-not-finite", "ok"},
	{"+5", "ok", "ok"},
	{".5", "ok", "ok"},
	{"5.", "ok", "ok"},
	{".", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"-", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"e5", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"5e", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"5e+", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"5e-3", "ok", "ok"},
	{"0x1p3", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"1,5", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"\u00a01\u3000", "ok", "ok"},
	{"\x1c1\x1f", "ok", "ok"},
	{"\t1\n", "ok", "ok"},
	{"1\x00", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"1_", "ok", "ok"},
	{"__1__", "ok", "ok"},
	{"1e1_0", "ok", "ok"},
	{"1.2.3", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"--1", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"1e--1", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"INF", "metrics.meter-not-finite", "metrics.meter-not-finite"},
	{"1ee5", "metrics.meter-not-finite", "metrics.meter-not-finite"},
}

// payloadOf builds a JSON object value from key/value pairs.
func payloadOf(kv ...any) Value {
	v := Value{Kind: KindObject, Object: []Member{}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Object = append(v.Object, Member{Key: kv[i].(string), Value: kv[i+1].(Value)})
	}
	return v
}

func checkVerdict(t *testing.T, err error, want string) {
	t.Helper()
	if want == "ok" {
		if err != nil {
			t.Fatalf("rejected: %v", err)
		}
		return
	}
	wantReason(t, err, want)
}

func TestMeterStrings(t *testing.T) {
	for _, c := range meterStrings {
		t.Run(fmt.Sprintf("%.30q", c.s), func(t *testing.T) {
			checkVerdict(t, CheckMetrics(payloadOf("cost", String(c.s))), c.cost)
			checkVerdict(t, CheckMetrics(payloadOf("duration", String(c.s))), c.cost)
			checkVerdict(t, CheckMetrics(payloadOf("time_unix", String(c.s))), c.timeUnix)
		})
	}
}

func TestMetricsEdges(t *testing.T) {
	big60 := new(big.Int).Lsh(big.NewInt(1), 60)
	huge := new(big.Int).Lsh(big.NewInt(1), 1100)
	cases := []struct {
		name    string
		payload Value
		want    string
	}{
		{"cost true", payloadOf("cost", Bool(true)), "metrics.meter-not-finite"},
		{"cost null", payloadOf("cost", Null()), "metrics.meter-not-finite"},
		{"cost list", payloadOf("cost", Array()), "metrics.meter-not-finite"},
		{"cost -0.0", payloadOf("cost", Float(math.Copysign(0, -1))), "ok"},
		{"cost big int", payloadOf("cost", BigInt(big60)), "ok"},
		{"cost beyond float64", payloadOf("cost", BigInt(huge)), "metrics.meter-not-finite"},
		{"cost -big", payloadOf("cost", BigInt(new(big.Int).Neg(big60))), "metrics.meter-not-finite"},
		{"time_unix null", payloadOf("time_unix", Null()), "metrics.meter-not-finite"},
		{"time_unix negative float", payloadOf("time_unix", Float(-1.5)), "ok"},
		{"time_unix absent is fine", payloadOf("kind", String("model")), "ok"},
		{"usage string", payloadOf("usage", String("x")), "metrics.usage-not-object"},
		{"usage true", payloadOf("usage", Bool(true)), "metrics.usage-not-object"},
		{"usage empty object", payloadOf("usage", payloadOf()), "ok"},
		{"usage null value", payloadOf("usage", payloadOf("input", Null())), "metrics.usage-value-not-numeric"},
		{"usage integral float token", payloadOf("usage", payloadOf("input", Float(3))), "ok"},
		{"usage -0.0 token", payloadOf("usage", payloadOf("output", Float(math.Copysign(0, -1)))), "ok"},
		{"usage negative non-token", payloadOf("usage", payloadOf("latency_ms", Float(-1.5))), "metrics.meter-not-finite"},
		{"usage big token", payloadOf("usage", payloadOf("total", BigInt(big60))), "metrics.token-dimension-unsafe"},
		{"usage big non-token", payloadOf("usage", payloadOf("bytes", BigInt(big60))), "ok"},
		{"usage 2^53-1 float token", payloadOf("usage", payloadOf("reasoning", Float(MaxTokenCount))), "ok"},
		{"usage 2^53 float token", payloadOf("usage", payloadOf("cache_write_1h", Float(MaxTokenCount+1))), "metrics.token-dimension-unsafe"},
		{"payload not an object", Array(), "metrics.meter-not-finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkVerdict(t, CheckMetrics(c.payload), c.want) })
	}
}
