package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tinehq/tine/objects"
)

// histModel is the reference the history index is checked against: each
// run's full event list and events' meters.
type histModel struct {
	rng    *rand.Rand
	lists  map[objects.OID][]HistoryEvent
	order  []objects.OID
	serial int
}

func newHistModel(seed uint64) *histModel {
	return &histModel{rng: rand.New(rand.NewPCG(seed, 1)), lists: map[objects.OID][]HistoryEvent{}}
}

// oid returns a fresh oid of type t.
func (m *histModel) oid(t objects.Type) objects.OID {
	m.serial++
	id := objects.OID{Type: t, Algo: objects.BLAKE3}
	for i := range id.Digest {
		id.Digest[i] = byte(m.rng.IntN(256))
	}
	return id
}

// next makes a run extending (or forking, when k is short of the base's
// length) a random known run, or a new one, with 0 to 30 own events.
func (m *histModel) next() HistoryAdd {
	a := HistoryAdd{Run: m.oid(objects.TypeRun), Status: []string{"running", "done"}[m.rng.IntN(2)]}
	var list []HistoryEvent
	if len(m.order) > 0 && m.rng.IntN(5) > 0 {
		a.Base = m.order[m.rng.IntN(len(m.order))]
		base := m.lists[a.Base]
		a.Prefix = len(base)
		if len(base) > 0 && m.rng.IntN(3) == 0 {
			a.Prefix = m.rng.IntN(len(base) + 1)
		}
		list = append(list, base[:a.Prefix]...)
	}
	for i, n := 0, m.rng.IntN(31); i < n; i++ {
		e := HistoryEvent{ID: m.oid(objects.TypeEvent), Step: fmt.Sprintf("tool%d", m.rng.IntN(5)),
			Cost: float64(m.rng.IntN(100)) / 7, Duration: float64(m.rng.IntN(100)) / 3, Tokens: float64(m.rng.IntN(1000))}
		if m.rng.IntN(4) == 0 {
			e.Score, e.HasScore = float64(m.rng.IntN(100))/9, true
		}
		a.Own = append(a.Own, e)
		list = append(list, e)
	}
	if len(list) > 0 {
		a.Tips = []objects.OID{list[len(list)-1].ID}
	}
	if a.Prefix == 0 {
		a.Base = objects.OID{}
	}
	m.lists[a.Run] = list
	m.order = append(m.order, a.Run)
	return a
}

// check compares every run of the model with h.
func (m *histModel) check(t *testing.T, h *History) {
	t.Helper()
	for _, id := range m.order {
		list := m.lists[id]
		hr, err := h.Run(id)
		if err != nil || hr == nil || hr.Len != len(list) {
			t.Fatalf("run %s: %v, %v, want %d events", id, hr, err, len(list))
		}
		var want HistorySums
		for _, e := range list {
			want.Cost += e.Cost
			want.Duration += e.Duration
			want.Tokens += e.Tokens
			if e.HasScore {
				want.Score, want.HasScore = e.Score, true
			}
		}
		if got, err := h.Sums(hr); err != nil || got != want {
			t.Fatalf("run %s sums %+v (%v), want %+v", id, got, err, want)
		}
		i := 0
		if err := h.Each(hr, 0, hr.Len, func(k int, eid objects.OID, step string) error {
			if k != i || eid != list[k].ID || step != list[k].Step {
				return fmt.Errorf("position %d: %s %q, want %s %q", k, eid, step, list[k].ID, list[k].Step)
			}
			i++
			return nil
		}); err != nil || i != len(list) {
			t.Fatalf("run %s: %v after %d", id, err, i)
		}
		newest, err := h.Newest(hr, 7)
		if err != nil {
			t.Fatal(err)
		}
		for k, eid := range newest {
			if eid != list[len(list)-1-k].ID {
				t.Fatalf("run %s: newest[%d] = %s", id, k, eid)
			}
		}
		if len(list) > 0 {
			found := false
			for _, c := range h.RunsEndingWith(list[len(list)-1].ID) {
				found = found || c == id
			}
			if !found {
				t.Fatalf("run %s not found by its last event", id)
			}
		}
	}
}

// TestHistoryAddAndWalk: runs added one or a few at a time, as bases and
// prefixes of each other, read back equal to the model, and merging keeps
// the chain short.
func TestHistoryAddAndWalk(t *testing.T) {
	root := t.TempDir()
	m := newHistModel(1)
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i := 0; i < 300; i++ {
		batch := []HistoryAdd{m.next()}
		if i%10 == 0 {
			batch = append(batch, m.next())
		}
		if err := h.Add(batch); err != nil {
			t.Fatal(err)
		}
	}
	m.check(t, h)
	if n, runs, _ := h.Layers(); n > 12 || runs != 330 {
		t.Fatalf("%d layers holding %d runs, want at most 12 holding 330", n, runs)
	}
	h2, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	m.check(t, h2)
	// Shared prefixes follow the bases.
	a, _ := h2.Run(m.order[5])
	if p, err := h2.SharedPrefix(a, a); err != nil || p != a.Len {
		t.Fatalf("shared prefix of a run with itself: %d, %v", p, err)
	}
}

// TestHistoryCorruptFiles: a layer or chain that is flipped, truncated,
// written for the other hash, or missing is ErrHistoryCorrupt on open or
// (a flipped event record) when read, never a wrong answer; ResetHistory
// empties the index.
func TestHistoryCorruptFiles(t *testing.T) {
	damage := map[string]func(t *testing.T, dir string, layer string){
		"flipped layer byte": func(t *testing.T, dir, layer string) {
			b := readT(t, layer)
			b[len(b)/2] ^= 0x40
			writeT(t, layer, b)
		},
		"truncated layer": func(t *testing.T, dir, layer string) { writeT(t, layer, readT(t, layer)[:300]) },
		"empty layer":     func(t *testing.T, dir, layer string) { writeT(t, layer, nil) },
		"missing layer":   func(t *testing.T, dir, layer string) { os.Remove(layer) },
		"flipped chain": func(t *testing.T, dir, _ string) {
			p := filepath.Join(dir, historyFile)
			b := readT(t, p)
			b[25] ^= 1
			writeT(t, p, b)
		},
		"layer symlink": func(t *testing.T, dir, layer string) {
			os.Rename(layer, layer+".x")
			os.Symlink(layer+".x", layer)
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			m := newHistModel(2)
			h, err := OpenHistory(root, objects.BLAKE3)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				if err := h.Add([]HistoryAdd{m.next()}); err != nil {
					t.Fatal(err)
				}
			}
			h.Close()
			dir := filepath.Join(root, filepath.FromSlash(HistoryDir))
			layers, _ := filepath.Glob(filepath.Join(dir, "*.layer"))
			if len(layers) == 0 {
				t.Fatal("no layer written")
			}
			os.Chmod(layers[0], 0o644)
			f(t, dir, layers[0])
			if err := readAll(root, m); !errors.Is(err, ErrHistoryCorrupt) {
				t.Fatalf("open and read after damage: %v, want ErrHistoryCorrupt", err)
			}
			if err := ResetHistory(root, objects.BLAKE3); err != nil {
				t.Fatal(err)
			}
			h, err = OpenHistory(root, objects.BLAKE3)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			if n, runs, _ := h.Layers(); n != 0 || runs != 0 {
				t.Fatalf("after reset: %d layers, %d runs", n, runs)
			}
		})
	}
	t.Run("foreign hash", func(t *testing.T) {
		root := t.TempDir()
		h, _ := OpenHistory(root, objects.BLAKE3)
		if err := h.Add([]HistoryAdd{newHistModel(3).next()}); err != nil {
			t.Fatal(err)
		}
		h.Close()
		if _, err := OpenHistory(root, objects.SHA256); !errors.Is(err, ErrHistoryCorrupt) {
			t.Fatalf("open as sha256: %v, want ErrHistoryCorrupt", err)
		}
	})
}

// TestHistoryLayerFuzzNoPanic: every single-byte change of a valid layer
// is refused when it is opened or when the damaged bytes are read, every
// truncation when it is opened, and a change whose checksums are
// recomputed to match never makes an accessor panic.
func TestHistoryLayerFuzzNoPanic(t *testing.T) {
	m := newHistModel(4)
	var runs []histRunData
	h := &History{algo: objects.BLAKE3}
	batch := map[[32]byte]*histRunData{}
	for range 6 {
		a := m.next()
		d, err := h.runData(a, batch)
		if err != nil {
			t.Fatal(err)
		}
		batch[a.Run.Digest] = d
		runs = append(runs, *d)
	}
	good := encodeHistLayer("blake3", runs)
	for i := 0; i < len(good)-histTrailer; i += 7 {
		b := append([]byte(nil), good...)
		b[i] ^= 0xff
		// Damage is found when the layer is opened, or (an event record:
		// their blocks carry their own sums) when the block is read.
		l, err := openHistLayer("x", b, objects.BLAKE3)
		if err == nil {
			hh := &History{algo: objects.BLAKE3, layers: []*histLayer{l}}
			if _, err = hh.layerRuns(l); err == nil {
				t.Fatalf("byte %d flipped: accepted", i)
			}
		}
		fixCRC(b)
		if l, err := openHistLayer("x", b, objects.BLAKE3); err == nil {
			hh := &History{algo: objects.BLAKE3, layers: []*histLayer{l}}
			for _, id := range m.order {
				if hr, err := hh.Run(id); err == nil && hr != nil {
					hh.Sums(hr)
					hh.Each(hr, 0, hr.Len, func(int, objects.OID, string) error { return nil })
					hh.Newest(hr, 3)
				}
			}
			hh.layerRuns(l)
		}
	}
	for n := 0; n < len(good); n += 13 {
		if _, err := openHistLayer("x", good[:n], objects.BLAKE3); err == nil {
			t.Fatalf("truncated to %d: accepted", n)
		}
	}
}

// fixCRC recomputes a layer's checksums (the event blocks' and the
// trailer), as the header's counts give them.
func fixCRC(b []byte) {
	le := binary.LittleEndian
	body := b[:len(b)-histTrailer]
	nruns, nevents := int(le.Uint32(b[20:])), int(le.Uint32(b[28:]))
	evStart := histHeaderSize + histFanout + nruns*(histRunSize+histTailSize)
	evEnd := evStart + nevents*histEventSize
	blocks := histBlocks(nevents)
	if nruns < 0 || nevents < 0 || evEnd > len(body) || evEnd+4*blocks > len(body) {
		return
	}
	tab := len(body) - 4*blocks
	for k := 0; k < blocks; k++ {
		lo, hi := evStart+k*histBlockEvents*histEventSize, min(evStart+(k+1)*histBlockEvents*histEventSize, evEnd)
		le.PutUint32(b[tab+4*k:], crc32Castagnoli(b[lo:hi]))
	}
	c := crc32.Update(crc32Castagnoli(body[:evStart]), castagnoli, body[evEnd:])
	le.PutUint32(b[len(body):], c)
}

// TestHistoryConcurrentWriters: writers with their own handles (as
// separate processes have) add runs at once; every run each added is in
// the index afterwards and reads back right.
func TestHistoryConcurrentWriters(t *testing.T) {
	root := t.TempDir()
	const writers, rounds = 4, 12
	models := make([]*histModel, writers)
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		models[w] = newHistModel(uint64(10 + w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := OpenHistory(root, objects.BLAKE3)
			if err != nil {
				errs <- err
				return
			}
			defer h.Close()
			for range rounds {
				if err := h.Add([]HistoryAdd{models[w].next()}); err != nil {
					errs <- err
				}
				if _, err := h.Run(models[w].order[0]); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, m := range models {
		m.check(t, h)
	}
}

// readAll opens the index under root and walks every run of m: the
// first error, nil when all reads succeed.
func readAll(root string, m *histModel) error {
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		return err
	}
	defer h.Close()
	for _, id := range m.order {
		hr, err := h.Run(id)
		if err != nil {
			return err
		}
		if hr == nil {
			continue
		}
		if err := h.Each(hr, 0, hr.Len, func(int, objects.OID, string) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

func readT(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeT(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryDeepChainStaysShort: 600 runs each appending one event to
// the one before (record, one event at a time) read back right, and a
// walk over the newest run's whole list visits at most skipMin-1 plain
// bases and log2 of the depth jumps, not 600 records.
func TestHistoryDeepChainStaysShort(t *testing.T) {
	root := t.TempDir()
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	m := newHistModel(5)
	var prev objects.OID
	for i := 0; i < 600; i++ {
		a := HistoryAdd{Run: m.oid(objects.TypeRun), Status: "running"}
		var list []HistoryEvent
		if i > 0 {
			a.Base, a.Prefix = prev, i
			list = append(list, m.lists[prev]...)
		}
		e := HistoryEvent{ID: m.oid(objects.TypeEvent), Step: "sh", Cost: float64(i%7) / 3, Tokens: float64(i)}
		a.Own = []HistoryEvent{e}
		m.lists[a.Run] = append(list, e)
		m.order = append(m.order, a.Run)
		if err := h.Add([]HistoryAdd{a}); err != nil {
			t.Fatal(err)
		}
		prev = a.Run
	}
	m.check(t, h)
	hr, _ := h.Run(prev)
	segs := 0
	if err := h.segments(hr.rec, 0, hr.Len, func(histSeg) (bool, error) { segs++; return true, nil }); err != nil {
		t.Fatal(err)
	}
	if segs > 7+10 {
		t.Fatalf("a walk over 600 single-event appends visits %d records", segs)
	}
	if _, _, events := h.Layers(); events > 600*10 {
		t.Fatalf("%d own events stored for 600", events)
	}
}

// TestHistoryRunLongerThanIndexRefused: a record (checksums fixed up, as
// a forged layer has them) claiming more events than the index holds is
// ErrHistoryCorrupt when looked up, before a reader sizes a list by its
// length (Newest of all its events would ask for 2^30 oids, 64 GiB).
func TestHistoryRunLongerThanIndexRefused(t *testing.T) {
	m := newHistModel(5)
	a := m.next()
	h := &History{algo: objects.BLAKE3}
	d, err := h.runData(a, map[[32]byte]*histRunData{})
	if err != nil {
		t.Fatal(err)
	}
	d.base, d.prefix = d.id, MaxHistoryEvents
	l, err := openHistLayer("x", encodeHistLayer("blake3", []histRunData{*d}), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	hh := &History{algo: objects.BLAKE3, layers: []*histLayer{l}}
	hr, err := hh.Run(a.Run)
	if err == nil {
		_, err = hh.Newest(hr, 0)
	}
	if !errors.Is(err, ErrHistoryCorrupt) {
		t.Fatalf("run of %d claimed events: %v, want ErrHistoryCorrupt", MaxHistoryEvents+len(a.Own), err)
	}
}

// TestHistoryOpenDuringMerges: a reader whose chain is replaced twice
// while it opens the layers (two writers merging in turn, each deleting
// the layer the reader's chain named) reads the newest chain, instead of
// calling a healthy index corrupt (which makes the reader empty it).
func TestHistoryOpenDuringMerges(t *testing.T) {
	root := t.TempDir()
	m := newHistModel(6)
	w, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add([]HistoryAdd{m.next()}); err != nil {
		t.Fatal(err)
	}
	// big is a run of more own events than the index holds, so adding it
	// merges every layer into the new one and deletes them.
	big := func() HistoryAdd {
		a := HistoryAdd{Run: m.oid(objects.TypeRun), Status: "running"}
		_, _, events := w.Layers()
		for range 2*events + 64 {
			a.Own = append(a.Own, HistoryEvent{ID: m.oid(objects.TypeEvent), Step: "tool"})
		}
		return a
	}
	merges, writing := 0, false
	testHookChainRead = func() {
		// The writer's own loads pass here too: only the reader's merge.
		if merges < 2 && !writing {
			merges++
			writing = true
			if err := w.Add([]HistoryAdd{big()}); err != nil {
				t.Error(err)
			}
			writing = false
		}
	}
	defer func() { testHookChainRead = nil }()
	r, err := OpenHistory(root, objects.BLAKE3)
	testHookChainRead = nil
	if err != nil {
		t.Fatalf("open while writers merge: %v", err)
	}
	defer r.Close()
	if n, runs, _ := r.Layers(); n != 1 || runs != 3 {
		t.Fatalf("opened %d layers holding %d runs, want the merged layer of 3 runs", n, runs)
	}
}

// TestHistoryRunAllocatesOnlyItsAnswer: looking a sound run up allocates
// its answer (the run, its status and tips), not an error it does not
// return; `log -n 20` looks its run up on every call.
func TestHistoryRunAllocatesOnlyItsAnswer(t *testing.T) {
	root := t.TempDir()
	m := newHistModel(7)
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	add := m.next()
	if err := h.Add([]HistoryAdd{add}); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if hr, err := h.Run(add.Run); err != nil || hr == nil {
			t.Fatalf("Run: %v, %v", hr, err)
		}
	})
	if allocs > 3 {
		t.Fatalf("Run allocates %.0f times, want at most 3 (run, status, tips)", allocs)
	}
}

// TestResetHistoryReportsWhatItCannotDelete: ResetHistory promises a
// history index without layers, so a layer it cannot delete (here a
// directory in a layer file's place, which os.Remove refuses even to
// root) is its error, naming the file; before, the failed delete was
// dropped and the reset reported success. An add beside such a leftover
// still succeeds: the chain is written, the leftover costs disk only.
func TestResetHistoryReportsWhatItCannotDelete(t *testing.T) {
	root := t.TempDir()
	h, err := OpenHistory(root, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	m := newHistModel(1)
	if err := h.Add([]HistoryAdd{m.next()}); err != nil {
		t.Fatal(err)
	}
	stuck := filepath.Join(h.dir, layerFile([32]byte{1})) // no chain names it
	if err := os.MkdirAll(filepath.Join(stuck, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := h.Add([]HistoryAdd{m.next()}); err != nil {
		t.Fatalf("an add beside an undeletable leftover: %v", err)
	}
	err = ResetHistory(root, objects.BLAKE3)
	if err == nil || !strings.Contains(err.Error(), filepath.Base(stuck)) {
		t.Fatalf("ResetHistory beside an undeletable layer: %v, want an error naming it", err)
	}
}
