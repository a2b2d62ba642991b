package plumbing

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tinehq/tine/objects"
)

// CatMode selects what CatObject returns.
type CatMode string

// The cat-object modes.
const (
	// CatRaw returns the envelope body, byte for byte (the default).
	CatRaw CatMode = "raw"
	// CatPretty returns json bodies indented by two spaces, blobs raw.
	CatPretty CatMode = "pretty"
	// CatType returns the type name and LF.
	CatType CatMode = "type"
	// CatSize returns the body size in decimal and LF.
	CatSize CatMode = "size"
)

// CatObjectOptions configures CatObject.
type CatObjectOptions struct {
	// Revision names the object (anything RevParse accepts).
	Revision string
	// Mode is what to return; empty means CatRaw.
	Mode CatMode
}

// CatObjectResult is what `tine cat-object` reports. Output is what the
// human form prints for the mode. In JSON, raw and pretty modes add the
// body: "body" as JSON for json types, "body_b64" for blobs.
type CatObjectResult struct {
	OID      string          `json:"oid"`
	Type     objects.Type    `json:"type"`
	Schema   int64           `json:"schema"`
	Encoding string          `json:"encoding"`
	Size     int             `json:"size"`
	Body     json.RawMessage `json:"body,omitempty"`
	BodyB64  string          `json:"body_b64,omitempty"`
	Output   []byte          `json:"-"`
}

// CatObject reads an object, verifying its oid, and returns its body or
// facts about it.
func CatObject(ctx context.Context, r *Repo, opt CatObjectOptions) (*CatObjectResult, error) {
	id, err := r.Resolve(ctx, opt.Revision)
	if err != nil {
		return nil, fmt.Errorf("cat-object: %w", err)
	}
	o, err := r.objs.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("cat-object: %w", err)
	}
	res := &CatObjectResult{OID: o.ID.String(), Type: o.Type, Schema: o.Schema, Encoding: o.Encoding(), Size: len(o.Body)}
	switch opt.Mode {
	case CatType:
		res.Output = []byte(string(o.Type) + "\n")
		return res, nil
	case CatSize:
		res.Output = strconv.AppendInt(nil, int64(len(o.Body)), 10)
		res.Output = append(res.Output, '\n')
		return res, nil
	case "", CatRaw, CatPretty:
	default:
		return nil, fmt.Errorf("cat-object: unknown mode %q: %w", opt.Mode, ErrBadInput)
	}
	if o.Type == objects.TypeBlob {
		res.BodyB64 = base64.StdEncoding.EncodeToString(o.Body)
		res.Output = o.Body
		return res, nil
	}
	res.Body = json.RawMessage(o.Body)
	res.Output = o.Body
	if opt.Mode == CatPretty {
		var buf bytes.Buffer
		if err := json.Indent(&buf, o.Body, "", "  "); err != nil {
			return nil, fmt.Errorf("cat-object %s: indent: %w", o.ID, err)
		}
		buf.WriteByte('\n')
		res.Output = buf.Bytes()
	}
	return res, nil
}
