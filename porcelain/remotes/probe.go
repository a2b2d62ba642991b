package remotes

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/remote"
)

// writeProber is a transport whose ref moves rely on the server enforcing
// conditional writes (S3: If-None-Match / If-Match); its Probe races
// conditional writes on a scratch key and fails unless exactly one wins.
type writeProber interface {
	Probe(ctx context.Context) error
}

// Probe checks rm before `remote add` records it: its configuration must
// be valid, its URL one a transport of this build can open with it
// (remote.Check: scheme, URL rules, token variable, endpoint) and, when its transport relies on the server for
// compare-and-swap (an s3:// remote), the server must enforce conditional
// writes, else it is refused ("this server does not enforce conditional
// writes") and nothing is recorded. Other remotes are not contacted.
func Probe(ctx context.Context, rm Remote) error {
	if err := checkRemote(rm); err != nil {
		return err
	}
	if err := remote.Check(rm.URL, remote.Config{Token: rm.TokenEnv != "", Endpoint: rm.Endpoint}); err != nil {
		return fmt.Errorf("remote %s: %w; it was not added", rm.Name, err)
	}
	u, err := remote.ParseURL(rm.URL)
	if err != nil {
		return err
	}
	if u.Scheme != "s3" {
		// Only S3 leaves compare-and-swap to the server; the others are
		// not contacted (an http remote's token may be set only later,
		// in the job that pushes).
		return nil
	}
	tr, err := remote.Open(ctx, rm.URL, remote.Options{Endpoint: rm.Endpoint})
	if err != nil {
		return fmt.Errorf("remote %s: %w", rm.Name, err)
	}
	defer tr.Close()
	p, ok := tr.(writeProber)
	if !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil {
		return fmt.Errorf("remote %s: %w; it was not added", rm.Name, err)
	}
	return nil
}
