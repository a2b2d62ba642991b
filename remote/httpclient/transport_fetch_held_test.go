package httpclient

import (
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
)

// TestSplitBlocks: of a frame's raw blocks, those holding only held
// objects stay with the held-back objects (their payloads copied out of
// the frame, which may then be dropped), those holding none go to the
// frame's install, and one holding both goes to neither (its objects are
// stored one by one, held or not).
func TestSplitBlocks(t *testing.T) {
	a := objects.BLAKE3
	id := func(ty objects.Type, s string) objects.OID { return a.Derive(ty, 1, []byte(s)) }
	run, eval, ev1, ev2 := id(objects.TypeRun, "r"), id(objects.TypeAttestation, "a"), id(objects.TypeEvent, "1"), id(objects.TypeEvent, "2")
	frame := []byte("held payload|free payload|mixed payload")
	held := pack.RawBlock{IDs: []objects.OID{run, eval}, Payload: frame[:12]}
	free := pack.RawBlock{IDs: []objects.OID{ev1}, Payload: frame[13:25]}
	mixed := pack.RawBlock{IDs: []objects.OID{ev2, run}, Payload: frame[26:]}
	h := newHeldBack()
	h.ids[run], h.ids[eval] = true, true
	rest := h.splitBlocks([]pack.RawBlock{held, free, mixed})
	if len(rest) != 1 || rest[0].IDs[0] != ev1 || len(h.blocks) != 1 || h.blocks[0].IDs[0] != run {
		t.Fatalf("rest %v, held %v", rest, h.blocks)
	}
	copy(frame, "XXXXXXXXXXXX")
	if string(h.blocks[0].Payload) != "held payload" {
		t.Fatalf("the held block's payload aliases the frame: %q", h.blocks[0].Payload)
	}
}
