package porcelain

import (
	"io"
	"os/exec"

	"github.com/tinehq/tine/internal/procgroup"
)

// setupGroup makes cmd the leader of its own process group, so that the
// signals tine forwards reach everything the command started. It returns
// what to undo once the command has exited.
func setupGroup(cmd *exec.Cmd, stdin io.Reader) (restore func()) {
	procgroup.Setup(cmd)
	return func() {}
}
