package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/gofrs/flock"

	"github.com/tinehq/tine/objects"
)

// Errors of the history index.
var (
	// ErrHistoryCorrupt reports a chain or layer file that fails a check:
	// the caller answers from the objects and resets the index.
	ErrHistoryCorrupt = errors.New("history index is corrupt")
	// ErrHistoryBase reports an Add whose base run is not indexed.
	ErrHistoryBase = errors.New("history index lacks the base run")
)

// MaxHistoryEvents bounds a run's event count in the history index.
const MaxHistoryEvents = 1 << 30

// History is an open history index: the layers its chain named when it
// was opened (or last written through it). It is not safe for concurrent
// use; concurrent processes are safe (see the package doc).
type History struct {
	dir    string
	algo   objects.Algo
	names  [][32]byte
	layers []*histLayer // oldest first
}

// OpenHistory opens the history index of the repository directory root.
// A missing index is an empty one; a damaged one is ErrHistoryCorrupt.
func OpenHistory(root string, algo objects.Algo) (*History, error) {
	dir, err := historyDirSafe(root)
	if err != nil {
		return nil, err
	}
	h := &History{dir: dir, algo: algo}
	if err := h.load(); err != nil {
		return nil, err
	}
	return h, nil
}

// load reads the chain and opens its layers. A layer deleted between the
// two reads was merged by another writer: the chain is read again, as
// long as it keeps changing (writers merging one after another while
// the layers are opened), up to maxChainRereads times. Only a chain that
// names a missing layer twice in a row is damage.
func (h *History) load() error {
	var err error
	var prev [][32]byte
	for try := 0; ; try++ {
		h.release()
		if h.names, err = readChain(h.dir, h.algo); err != nil {
			return err
		}
		if testHookChainRead != nil {
			testHookChainRead()
		}
		err = nil
		for _, n := range h.names {
			l, lerr := openLayerFile(h.dir, n, h.algo)
			if lerr != nil {
				err = lerr
				break
			}
			h.layers = append(h.layers, l)
		}
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if (try > 0 && slices.Equal(h.names, prev)) || try >= maxChainRereads {
			break
		}
		prev = h.names
	}
	h.release()
	return fmt.Errorf("%w: %w", err, ErrHistoryCorrupt)
}

// maxChainRereads bounds how often load reads a chain that moved on
// while its layers were being opened.
const maxChainRereads = 64

// testHookChainRead, when set (by tests), runs after load reads the
// chain and before it opens the layers the chain names.
var testHookChainRead func()

// release unmaps the layers.
func (h *History) release() {
	for _, l := range h.layers {
		if l.unmap != nil {
			l.unmap()
		}
	}
	h.layers, h.names = nil, nil
}

// Close releases the index's mappings.
func (h *History) Close() error {
	h.release()
	return nil
}

// Layers returns the number of layers and the runs and own events they
// hold.
func (h *History) Layers() (layers, runs, events int) {
	for _, l := range h.layers {
		runs += l.nruns
		events += l.nevents
	}
	return len(h.layers), runs, events
}

// lookup finds run digest d, newest layer first.
func (h *History) lookup(d [32]byte) (histRec, bool, error) {
	for i := len(h.layers) - 1; i >= 0; i-- {
		l := h.layers[i]
		if k := l.find(&d); k >= 0 {
			r, err := l.rec(k)
			return r, err == nil, err
		}
	}
	return histRec{}, false, nil
}

// HistoryRun is an indexed run: what the index keeps of its payload, and
// a handle for walking its events.
type HistoryRun struct {
	ID     objects.OID
	Len    int
	Status string
	Tips   []objects.OID
	rec    histRec
}

// Run returns the indexed run id, or nil when it is not indexed.
func (h *History) Run(id objects.OID) (*HistoryRun, error) {
	r, ok, err := h.lookup(id.Digest)
	if err != nil || !ok {
		return nil, err
	}
	// Every position of a run is one own event of a record on its chain
	// of bases, so a run longer than the index's own events is a damaged
	// or forged record: refused here, before a reader sizes a list by it.
	if _, _, events := h.Layers(); r.prefix+r.own > events {
		return nil, fmt.Errorf("history layer %s: run %s claims %d events, the index holds %d: %w", r.layer.name, id, r.prefix+r.own, events, ErrHistoryCorrupt)
	}
	hr := &HistoryRun{ID: id, Len: r.prefix + r.own, rec: r}
	if hr.Status, hr.Tips, err = h.meta(r); err != nil {
		return nil, err
	}
	return hr, nil
}

// meta decodes a record's status and tips, bounded by its metadata bytes.
func (h *History) meta(r histRec) (string, []objects.OID, error) {
	b := r.layer.meta[r.metaAt : r.metaAt+uint64(r.metaLen)]
	// The error is built only when returned: formatting it on every call
	// cost each `log -n 20` fmt's set-up and a few allocations.
	bad := func() error { return fmt.Errorf("history layer %s: run metadata: %w", r.layer.name, ErrHistoryCorrupt) }
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return "", nil, bad()
	}
	status := string(b[k : k+int(n)])
	b = b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k)/32 || uint64(len(b)-k) != 32*n {
		return "", nil, bad()
	}
	b = b[k:]
	tips := make([]objects.OID, n)
	for i := range tips {
		tips[i] = objects.OID{Type: objects.TypeEvent, Algo: h.algo}
		copy(tips[i].Digest[:], b[32*i:])
	}
	return status, tips, nil
}

// lock takes the writers' lock of the index, creating its directory.
func (h *History) lock() (*flock.Flock, error) {
	return lockIn(h.dir, historyLock, "history index")
}

// Reset empties the index (a rebuild's first step, or the answer to a
// corrupt file): an empty chain replaces the old one and every layer file
// is deleted.
func ResetHistory(root string, algo objects.Algo) error {
	h := &History{algo: algo}
	var err error
	if h.dir, err = historyDirSafe(root); err != nil {
		return err
	}
	fl, err := h.lock()
	if err != nil {
		return err
	}
	defer fl.Unlock()
	if err := writeChain(h.dir, algo, nil); err != nil {
		return err
	}
	return h.prune(nil)
}

// prune deletes layer files the chain names does not hold (merged, or
// written by a writer whose chain lost) and temporary files writers that
// died left; the first it cannot delete is its error. Only a lock holder
// prunes.
func (h *History) prune(names [][32]byte) error {
	keep := map[string]bool{}
	for _, n := range names {
		keep[layerFile(n)] = true
	}
	if err := removeNamed(h.dir, func(n string, regular bool) bool {
		return strings.HasSuffix(n, layerSuffix) && !keep[n] || regular && strings.HasPrefix(n, ".tmp-")
	}); err != nil {
		return fmt.Errorf("history index: %w", err)
	}
	return nil
}
