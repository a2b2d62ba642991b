package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// RecoveryDir is the directory, inside the repository, where tine record
// keeps the event of a command whose append failed (see writeRecovery).
const RecoveryDir = "record-recovery"

// writeRecovery keeps an event that could not be appended, with the
// command's captured output, so nothing the command produced is lost. It
// writes three files named by the time and tine's pid: NAME.stdout and
// NAME.stderr (the redacted captures, exactly the bytes of the blobs) and,
// last, NAME.json: the event as an event file for `tine record --event`,
// its output_blob and artifact_blob replaced by {"path": ...} specs of the
// two captures. Appending that file stores the same blobs and the same
// event (the same oid), keeping the parents the command was recorded
// after. The files go to record-recovery/ in the repository, or, when that
// cannot be written, to a new directory in the system's temporary
// directory. Every file is written atomically and is readable by its
// owner only, since a capture may hold data the redaction did not know.
func writeRecovery(r *plumbing.Repo, payload objects.Value, stdout, stderr []byte, now time.Time) (string, error) {
	name := fmt.Sprintf("%s-%d", now.UTC().Format("20060102T150405.000000000Z"), os.Getpid())
	spec := derivePayload(payload, []objects.Member{
		{Key: "output", Value: objects.ObjectValue(objects.Member{Key: "path", Value: objects.String(name + ".stdout")})},
		{Key: "artifact", Value: objects.ObjectValue(objects.Member{Key: "path", Value: objects.String(name + ".stderr")})},
	}, map[string]bool{"output_blob": true, "artifact_blob": true})
	js, err := objects.CanonV3(spec)
	if err != nil {
		return "", fmt.Errorf("encode recovery event: %w", err)
	}
	js = append(js, '\n')
	write := func(dir string) (string, error) {
		for _, f := range []struct {
			ext  string
			data []byte
		}{{".stdout", stdout}, {".stderr", stderr}, {".json", js}} {
			if err := fsutil.WriteFileAtomic(filepath.Join(dir, name+f.ext), f.data, 0o600); err != nil {
				return "", err
			}
		}
		return filepath.Join(dir, name+".json"), nil
	}
	dir := filepath.Join(r.Root(), RecoveryDir)
	path, err := "", fsutil.MkdirAllSync(dir, 0o700)
	if err == nil {
		if path, err = write(dir); err == nil {
			return path, nil
		}
	}
	tmp, terr := os.MkdirTemp("", "tine-record-recovery-")
	if terr != nil {
		return "", fmt.Errorf("%s: %w; temporary directory: %w", dir, err, terr)
	}
	if path, terr = write(tmp); terr != nil {
		return "", fmt.Errorf("%s: %w; %s: %w", dir, err, tmp, terr)
	}
	return path, nil
}
