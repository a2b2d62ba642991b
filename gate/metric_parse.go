package gate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
)

// maxMetricJSONDepth bounds the nesting of metric and artifact JSON.
const maxMetricJSONDepth = 128

// ParseMetric extracts the number a parser names from text (SPEC §2
// metric runner). JSON is read strictly (duplicate keys refused) and the
// dotted path walked; an integer segment indexes a list. A regex matches
// multi-line and reads its group. The value must be a finite number (a
// numeric string is accepted); null, bool, NaN, Inf, "Infinity", a
// missing path and no match are errors, which the runner turns into ERROR.
func ParseMetric(p *MetricParser, text []byte) (float64, error) {
	switch p.Type {
	case "json":
		v, err := objects.ParseJSON(text, objects.ParseOptions{MaxDepth: maxMetricJSONDepth, DemoteBigInts: true, MaxIntDigits: 400})
		if err != nil {
			return 0, fmt.Errorf("metric output is not valid JSON: %w", err)
		}
		got, err := JSONPath(v, p.Path)
		if err != nil {
			return 0, err
		}
		return numberOf(got)
	case "regex":
		re, err := regexp.Compile("(?m)" + p.Pattern)
		if err != nil {
			return 0, fmt.Errorf("metric pattern does not compile: %w", err)
		}
		m := re.FindSubmatch(text)
		if m == nil {
			return 0, errors.New("metric pattern did not match")
		}
		idx := p.GroupIndex
		if p.GroupName != "" {
			idx = re.SubexpIndex(p.GroupName)
		}
		if idx < 0 || idx >= len(m) || m[idx] == nil {
			return 0, errors.New("metric pattern group did not participate in the match")
		}
		return numberText(string(m[idx]))
	}
	return 0, fmt.Errorf("unknown metric parser type %q", p.Type)
}

// JSONPath walks a dotted path through v: object members by name, list
// elements by an integer segment.
func JSONPath(v objects.Value, path string) (objects.Value, error) {
	cur := v
	for _, seg := range strings.Split(path, ".") {
		switch cur.Kind {
		case objects.KindObject:
			next, ok := cur.Get(seg)
			if !ok {
				return objects.Value{}, fmt.Errorf("JSON path %q: no member %q", path, seg)
			}
			cur = next
		case objects.KindArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < -len(cur.Array) || i >= len(cur.Array) {
				return objects.Value{}, fmt.Errorf("JSON path %q: no element %q", path, seg)
			}
			if i < 0 {
				i += len(cur.Array) // Python indexing counts from the end
			}
			cur = cur.Array[i]
		default:
			return objects.Value{}, fmt.Errorf("JSON path %q: %q is inside a %s", path, seg, cur.Kind)
		}
	}
	return cur, nil
}

func numberOf(v objects.Value) (float64, error) {
	switch v.Kind {
	case objects.KindInt:
		if v.Big != nil {
			f, _ := new(big.Float).SetInt(v.Big).Float64()
			return finite(f)
		}
		return float64(v.Int), nil
	case objects.KindFloat:
		return finite(v.Float)
	case objects.KindString:
		return numberText(v.Str)
	}
	return 0, fmt.Errorf("metric value is %s, not a number", v.Kind)
}

// numberText parses a decimal number; "inf", "nan" and hex are refused.
func numberText(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !numericText().MatchString(t) {
		return 0, fmt.Errorf("metric value %q is not a number", clip(s, 40))
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("metric value %q is not a finite number", clip(s, 40))
	}
	return finite(f)
}

func finite(f float64) (float64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("metric value is not finite")
	}
	return f, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Compare applies a threshold operator: value OP threshold.
func Compare(op string, value, threshold float64) (bool, error) {
	switch op {
	case "gt":
		return value > threshold, nil
	case "gte":
		return value >= threshold, nil
	case "lt":
		return value < threshold, nil
	case "lte":
		return value <= threshold, nil
	case "eq":
		return value == threshold, nil
	}
	return false, fmt.Errorf("unknown threshold operator %q", op)
}
