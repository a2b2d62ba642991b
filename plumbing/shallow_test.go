package plumbing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestReadShallowChecksProfile: every id of the shallow file must use the
// repository's hash profile; a sha256 id in a blake3 repository (or the
// other way round) is refused naming the file and the line, as is a line
// that is not an oid.
func TestReadShallowChecksProfile(t *testing.T) {
	digest := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		repo  objects.Algo
		lines string
		want  []string
	}{
		{objects.BLAKE3, fmt.Sprintf("event:blake3:%s\nevent:sha256:%s\n", digest, digest), []string{"line 2", "uses sha256", "blake3"}},
		{objects.SHA256, fmt.Sprintf("run:blake3:%s\n", digest), []string{"line 1", "uses blake3", "sha256"}},
		{objects.BLAKE3, fmt.Sprintf("event:blake3:%s\nevent:blake3:%s\n", digest, digest[:60]), []string{"line 2"}},
	} {
		r := newRepo(t, tc.repo)
		path := filepath.Join(r.Root(), "shallow")
		if err := os.WriteFile(path, []byte(tc.lines), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := r.ShallowSet()
		if err == nil {
			t.Errorf("%s repository, shallow %q: accepted", tc.repo, tc.lines)
			continue
		}
		if r, _ := objects.ReasonOf(err); r != objects.ReasonOidMalformed {
			t.Errorf("reason of %v = %q, want %s", err, r, objects.ReasonOidMalformed)
		}
		for _, w := range append(tc.want, path) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s repository, shallow %q: error %q does not say %q", tc.repo, tc.lines, err, w)
			}
		}
	}
	// A boundary of the repository's own profile still reads.
	r := newRepo(t, objects.BLAKE3)
	if err := os.WriteFile(filepath.Join(r.Root(), "shallow"), fmt.Appendf(nil, "event:blake3:%s\n", digest), 0o644); err != nil {
		t.Fatal(err)
	}
	if set, err := r.ShallowSet(); err != nil || len(set) != 1 {
		t.Errorf("a blake3 boundary in a blake3 repository: %v, %v", set, err)
	}
}
