package runs

import (
	"errors"
	"strings"
	"testing"
)

func TestParseParamNamesTheArgument(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"=3", `"=3": the name before "=" is empty`},
		{"lr", `"lr": want NAME=VALUE`},
		{"a b=1", `"a b": the name must be printable text without spaces`},
	} {
		_, err := ParseParam(tc.in)
		if !errors.Is(err, ErrBadParam) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseParam(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	p, err := ParseParam("lr=0.1=x")
	if err != nil || p.Name != "lr" || p.Value != "0.1=x" {
		t.Fatalf("ParseParam(lr=0.1=x) = %+v, %v", p, err)
	}
}
