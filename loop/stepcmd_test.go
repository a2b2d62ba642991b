package loop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// writeScript writes an executable shell script into a temp dir.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// counterScript counts toward 3 using only the request's branch_step: it
// proposes {"n": branch_step} scored branch_step, stops at 3, and echoes
// the request it received into a side file.
const counterScript = `req=$(cat)
echo "$req" >> "$0.log"
n=$(printf '%s' "$req" | sed 's/.*"branch_step":\([0-9]*\).*/\1/')
if [ "$n" -ge 3 ]; then
  printf '{"protocol":"tine-step/1","observation":"done at %s","score":%s,"stop":true,"cost":0.5}' "$n" "$n"
else
  printf '{"observation":"step %s","score":%s,"next_states":[{"state":{"n":%s},"score":%s}],"metadata":{"who":"sh"},"cost":0.5}' "$n" "$n" "$n" "$n"
fi
`

func TestStepCmdShellScriptInTheLoop(t *testing.T) {
	script := writeScript(t, counterScript)
	step, err := CommandStep(StepCmd{Argv: []string{script}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, tr := runTraced(t, Config{Goal: "count", Initial: obj("n", 0), Step: step})
	if res.TotalSteps != 3 || res.Best.Score != 3 || res.TotalCost != 1.5 || tr.ends[0].Gate != GateStop {
		t.Fatalf("steps %d best %v cost %v end %+v", res.TotalSteps, res.Best.Score, res.TotalCost, tr.ends)
	}
	if tr.iters[0].Observation != "step 1" || tr.iters[2].Observation != "done at 3" {
		t.Errorf("observations %q %q", tr.iters[0].Observation, tr.iters[2].Observation)
	}
	if who, _ := tr.iters[0].Metadata.Get("who"); who.Str != "sh" {
		t.Errorf("metadata %+v", tr.iters[0].Metadata)
	}
	log, err := os.ReadFile(script + ".log")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(log), "\n", 2)[0]
	v, err := objects.ParseJSON([]byte(first), objects.ParseOptions{})
	if err != nil {
		t.Fatalf("request is not JSON: %v: %s", err, first)
	}
	for _, k := range []string{"protocol", "goal", "state", "iteration", "branch_step", "branch", "best_score", "total_cost"} {
		if _, ok := v.Get(k); !ok {
			t.Errorf("request lacks %q: %s", k, first)
		}
	}
	if p, _ := v.Get("protocol"); p.Str != StepProtocol {
		t.Errorf("protocol %q", p.Str)
	}
}

func TestStepCmdFailsClosed(t *testing.T) {
	cases := map[string]struct{ body, want string }{
		"not json":      {`cat >/dev/null; echo 'score: 1'`, "malformed step response"},
		"empty":         {`cat >/dev/null`, "empty output"},
		"two objects":   {`cat >/dev/null; echo '{"score":1}{"score":2}'`, "after the value"},
		"no score":      {`cat >/dev/null; echo '{"observation":"x"}'`, `missing "score"`},
		"string stop":   {`cat >/dev/null; echo '{"score":1,"stop":"false"}'`, "stop is a JSON string"},
		"unknown key":   {`cat >/dev/null; echo '{"score":1,"next_state":[]}'`, `unknown key "next_state"`},
		"NaN":           {`cat >/dev/null; echo '{"score":NaN}'`, "malformed"},
		"no state":      {`cat >/dev/null; echo '{"score":1,"next_states":[{"score":2}]}'`, `has no "state"`},
		"neg cost":      {`cat >/dev/null; echo '{"score":1,"cost":-1}'`, "negative"},
		"bad protocol":  {`cat >/dev/null; echo '{"protocol":"tine-step/9","score":1}'`, "protocol must be"},
		"exit status":   {`cat >/dev/null; echo oops >&2; echo '{"score":1}'; exit 3`, `exit status 3 (stderr: "oops")`},
		"huge response": {`cat >/dev/null; head -c 5000 /dev/zero | tr '\0' ' '; echo '{"score":1}'`, "larger than 4096 bytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			step, err := CommandStep(StepCmd{Argv: []string{writeScript(t, c.body)}, MaxResponse: 4096})
			if err != nil {
				t.Fatal(err)
			}
			_, err = step(context.Background(), StepInput{State: obj("n", 0), BranchID: RootBranch})
			if !errors.Is(err, ErrStepCmd) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestStepCmdTimeoutKillsProcessGroup(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "survived")
	// The grandchild would write the marker after 2s unless its group dies.
	body := `cat >/dev/null; (sleep 2; touch ` + marker + `) & sleep 30`
	step, err := CommandStep(StepCmd{Argv: []string{writeScript(t, body)}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = step(context.Background(), StepInput{State: obj("n", 0)})
	if !errors.Is(err, ErrStepCmd) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("timeout took %s", took)
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a grandchild outlived the timeout")
	}
}

func TestStepCmdErrorEndsBranchInLoop(t *testing.T) {
	step, err := CommandStep(StepCmd{Argv: []string{writeScript(t, `cat >/dev/null; echo nope`)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Initial: obj("n", 0), Step: step, Now: fixedClock(0)})
	if !errors.Is(err, ErrNoBest) || res.StepErrors != 1 || res.Branches[0].Gate != GateError {
		t.Errorf("err %v, %+v", err, res)
	}
}

func TestCommandStepConfig(t *testing.T) {
	for _, c := range []StepCmd{{}, {Argv: []string{""}}, {Argv: []string{"x"}, Timeout: -1}} {
		if _, err := CommandStep(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
