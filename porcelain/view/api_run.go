package view

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// Blob and attestation bounds of the view.
const (
	// MaxBlobView is the most bytes of a blob the page shows.
	MaxBlobView = 64 << 10
	// maxPayloadText cuts an attestation payload's JSON text.
	maxPayloadText = 16 << 10
)

// blobView is /api/blob/{oid}: a verified blob's first MaxBlobView bytes.
type blobView struct {
	OID    string `json:"oid"`
	Size   int64  `json:"size"`
	Binary bool   `json:"binary"`
	Text   string `json:"text,omitempty"`
	Cut    bool   `json:"cut,omitempty"`
}

// blobOpener is the loose store's streaming read, which hashes as it
// reads: a large blob is verified whole while only its prefix is kept.
type blobOpener interface {
	OpenBlob(ctx context.Context, id objects.OID) (io.ReadCloser, int64, error)
}

func (s *Server) handleBlob(ctx context.Context, req *http.Request) (any, error) {
	id, err := oidParam(req, objects.TypeBlob)
	if err != nil {
		return nil, err
	}
	prefix, size, err := readBlobPrefix(ctx, s.r, id, MaxBlobView)
	if err != nil {
		return nil, err
	}
	bv := &blobView{OID: id.String(), Size: size, Binary: runs.IsBinary(prefix), Cut: int64(len(prefix)) < size}
	if !bv.Binary {
		bv.Text = clipText(string(prefix), len(prefix))
	}
	return bv, nil
}

// readBlobPrefix returns the first n bytes of blob id and its size, after
// verifying the whole blob: streamed from a loose object (constant
// memory), else read through the store.
func readBlobPrefix(ctx context.Context, r *plumbing.Repo, id objects.OID, n int) ([]byte, int64, error) {
	var op blobOpener = r.Loose()
	rc, size, err := op.OpenBlob(ctx, id)
	if err == nil {
		defer rc.Close()
		prefix := make([]byte, min(int64(n), size))
		if _, err := io.ReadFull(rc, prefix); err != nil {
			return nil, 0, fmt.Errorf("blob %s: %w", id, err)
		}
		// Reading to the end checks the oid (a mismatch is an error).
		if _, err := io.Copy(io.Discard, rc); err != nil {
			return nil, 0, fmt.Errorf("blob %s: %w", id, err)
		}
		return prefix, size, nil
	}
	if !errors.Is(err, objects.ErrNotFound) {
		return nil, 0, fmt.Errorf("blob %s: %w", id, err)
	}
	o, err := r.Objects().Get(ctx, id)
	if err != nil {
		return nil, 0, fmt.Errorf("blob %s: %w", id, err)
	}
	return o.Body[:min(n, len(o.Body))], int64(len(o.Body)), nil
}

// runView is /api/run/{oid}: a run's refs, attestations and promotions.
type runView struct {
	Run          string            `json:"run"`
	Refs         []GraphRun        `json:"refs"`
	Attestations []attestationView `json:"attestations"`
	Promotions   []trust.Promotion `json:"promotions"`
}

// attestationView is one attestation of a run: what the catalog indexed
// and the payload, read through the store (verified).
type attestationView struct {
	OID     string        `json:"oid"`
	Kind    string        `json:"kind,omitempty"`
	Signer  string        `json:"signer,omitempty"`
	Scores  []index.Score `json:"scores,omitempty"`
	Fields  []index.Field `json:"fields,omitempty"`
	Payload string        `json:"payload"`
	Cut     bool          `json:"cut,omitempty"`
}

func (s *Server) handleRun(ctx context.Context, req *http.Request) (any, error) {
	id, err := oidParam(req, objects.TypeRun)
	if err != nil {
		return nil, err
	}
	snap, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	rv := &runView{Run: id.String(), Refs: []GraphRun{}, Attestations: []attestationView{}, Promotions: []trust.Promotion{}}
	for _, gr := range snap.graph.Runs {
		if gr.Run == rv.Run {
			rv.Refs = append(rv.Refs, gr)
		}
	}
	cat, _, err := plumbing.OpenIndex(s.r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	for _, a := range cat.AttestationsFor(id) {
		av, err := s.attestation(ctx, a)
		if err != nil {
			return nil, err
		}
		rv.Attestations = append(rv.Attestations, av)
	}
	proms, err := trust.Promotions(ctx, s.r.Refs())
	if err != nil {
		return nil, err
	}
	for _, p := range proms.Promotions {
		if promotes(p, rv.Run) {
			rv.Promotions = append(rv.Promotions, p)
		}
	}
	return rv, nil
}

// attestation reads attestation a (the catalog's oid is a hint: the read
// verifies it) and describes it.
func (s *Server) attestation(ctx context.Context, a index.Attestation) (attestationView, error) {
	av := attestationView{OID: a.ID.String(), Kind: a.Kind, Signer: a.Signer, Scores: a.Scores, Fields: a.Fields}
	o, err := s.r.Objects().Get(ctx, a.ID)
	if err != nil {
		return av, fmt.Errorf("attestation %s: %w", a.ID, err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, o.Body, "", "  "); err != nil {
		return av, fmt.Errorf("attestation %s: %w", a.ID, err)
	}
	av.Payload = b.String()
	if len(av.Payload) > maxPayloadText {
		av.Payload, av.Cut = clipText(av.Payload, maxPayloadText), true
	}
	return av, nil
}

// promotes reports whether promotion p points at run now or did once.
func promotes(p trust.Promotion, run string) bool {
	if p.Run == run {
		return true
	}
	for _, h := range p.History {
		if h.New == run {
			return true
		}
	}
	return false
}

// diffParam reads a revision query parameter.
func diffParam(req *http.Request, name string) (string, error) {
	v := req.URL.Query().Get(name)
	if v == "" || len(v) > plumbing.MaxRevisionLen {
		return "", errorf(errBadRequest, "%s must name a run (at most %d bytes)", name, plumbing.MaxRevisionLen)
	}
	return v, nil
}

func (s *Server) handleDiff(ctx context.Context, req *http.Request) (any, error) {
	a, err := diffParam(req, "a")
	if err != nil {
		return nil, err
	}
	b, err := diffParam(req, "b")
	if err != nil {
		return nil, err
	}
	return runs.DiffRevisions(ctx, s.r, a, b, runs.DiffOptions{})
}
