package plumbing

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/tinehq/tine/objects"
)

// HashObjectOptions configures HashObject.
//
// Input rule: a blob's body is the input bytes, unchanged. For the json
// types (event, run, attestation, annotation) the input must already be the
// v3-canonical body, byte for byte: a non-canonical input is refused with
// envelope.body-non-canonical rather than silently rewritten, because the
// oid printed must be the oid of exactly the bytes given. Set Canonicalize
// to parse the input strictly (RFC 8259, no duplicate keys, no lone
// surrogates) and hash its canonical form instead.
//
// Every object must pass its structural link and metrics rules (SPEC §1.5),
// written or not. With Write the links must also exist (or be declared
// shallow) and runs and annotations must pass their graph and chain rules,
// so objects are written bottom-up: blobs, then events, then runs, as git
// refuses a tree naming a missing blob.
type HashObjectOptions struct {
	// Type is the object type; empty means blob.
	Type objects.Type
	// Write stores the objects in the repository.
	Write bool
	// Canonicalize hashes the canonical form of a json input instead of
	// requiring the input to be canonical already.
	Canonicalize bool
	// Stdin, when not nil, is read as one input before Paths.
	Stdin io.Reader
	// Paths are files to hash, each one object.
	Paths []string
	// ObjectFormat chooses the hash when there is no repository (r is nil);
	// empty means blake3. With a repository it must be empty or equal the
	// repository's.
	ObjectFormat objects.Algo
	// AroundStream is BulkOptions.AroundStream for the files stored by
	// streaming (StreamThreshold and larger).
	AroundStream func(writers int) (restore func())
}

// HashedObject is one object hashed by HashObject.
type HashedObject struct {
	// Source is the file name, or "-" for standard input.
	Source string `json:"source"`
	// OID is the object's id.
	OID string `json:"oid"`
	// Type is the object's type.
	Type objects.Type `json:"type"`
	// Size is the body size in bytes.
	Size int `json:"size"`
	// Written reports that the object is now stored (it may have been
	// already).
	Written bool `json:"written"`
}

// HashObjectResult is what `tine hash-object` reports, one entry per input
// in input order.
type HashObjectResult struct {
	Objects []HashedObject `json:"objects"`
}

// HashObject computes the oid of each input as an object of the given type
// and, with Write, stores it after validating it (see HashObjectOptions for
// the rules). r may be nil when not writing. Inputs are all checked before
// any is written, so a refused input writes nothing.
func HashObject(ctx context.Context, r *Repo, opt HashObjectOptions) (*HashObjectResult, error) {
	t := opt.Type
	if t == "" {
		t = objects.TypeBlob
	}
	if !t.Valid() {
		return nil, fmt.Errorf("hash-object: unknown type %q: %w", t, ErrBadInput)
	}
	if opt.Canonicalize && t == objects.TypeBlob {
		return nil, fmt.Errorf("hash-object: --canonicalize applies to json types, not blobs: %w", ErrBadInput)
	}
	algo, err := hashAlgo(r, opt)
	if err != nil {
		return nil, err
	}
	var ins []hashInput
	if opt.Stdin != nil {
		if err := checkInputStat(opt.Stdin, "-"); err != nil {
			return nil, fmt.Errorf("hash-object: %w", err)
		}
		b, err := readBounded(opt.Stdin, "-")
		if err != nil {
			return nil, err
		}
		ins = append(ins, hashInput{"-", b})
	}
	// Blob files from StreamThreshold up are never read whole: they are
	// hashed (and stored) in constant memory after the other inputs.
	var large []int
	for _, p := range opt.Paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("hash-object: %w", err)
		}
		if err := checkInputStat(f, p); err != nil {
			f.Close()
			return nil, fmt.Errorf("hash-object: %w", err)
		}
		if st, err := f.Stat(); err == nil && t == objects.TypeBlob && st.Mode().IsRegular() && st.Size() >= StreamThreshold {
			f.Close()
			large = append(large, len(ins))
			ins = append(ins, hashInput{p, nil})
			continue
		}
		b, err := readBounded(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		ins = append(ins, hashInput{p, b})
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("hash-object: no input (give files or --stdin): %w", ErrBadInput)
	}
	if len(large) > 0 {
		return hashWithLarge(ctx, r, algo, opt, ins, large)
	}
	objs := make([]*objects.Object, len(ins))
	for i, in := range ins {
		o, err := buildObject(algo, t, in.data, opt.Canonicalize)
		if err != nil {
			return nil, fmt.Errorf("hash-object %s: %w", in.name, err)
		}
		if _, err := objects.Links(o); err != nil {
			return nil, fmt.Errorf("hash-object %s: %w", in.name, err)
		}
		objs[i] = o
	}
	res := &HashObjectResult{Objects: make([]HashedObject, len(objs))}
	for i, o := range objs {
		res.Objects[i] = HashedObject{Source: ins[i].name, OID: o.ID.String(), Type: o.Type, Size: len(o.Body)}
	}
	if !opt.Write {
		return res, nil
	}
	// Earlier inputs may be the link targets of later ones, so each object
	// is validated against the store plus the inputs before it.
	res2, err := r.WriteValidated(ctx, objs, nil)
	if err != nil {
		return nil, fmt.Errorf("hash-object: %w", err)
	}
	for i := range res.Objects {
		res.Objects[i].Written = res2[i]
	}
	return res, nil
}

// hashInput is one input of HashObject: its name ("-" for standard input)
// and bytes (nil for a large blob file that is streamed).
type hashInput struct {
	name string
	data []byte
}

// hashWithLarge finishes HashObject when some inputs (indexes large) are
// blob files to stream. Blobs have no links, so validation cannot refuse
// one; the small inputs are stored in one batch first, then each large
// file is streamed in constant memory (hashing while writing, SPEC §1.3).
func hashWithLarge(ctx context.Context, r *Repo, a objects.Algo, opt HashObjectOptions, ins []hashInput, large []int) (*HashObjectResult, error) {
	write := opt.Write
	res := &HashObjectResult{Objects: make([]HashedObject, len(ins))}
	var small []*objects.Object
	isLarge := make(map[int]bool, len(large))
	for _, i := range large {
		isLarge[i] = true
	}
	for i, in := range ins {
		if isLarge[i] {
			continue
		}
		o := objects.NewBlob(a, objects.RedactBlob(in.data))
		small = append(small, o)
		res.Objects[i] = HashedObject{Source: in.name, OID: o.ID.String(), Type: o.Type, Size: len(o.Body), Written: write}
	}
	var bulk *BulkWriter
	if write {
		bulk = NewBulkWriter(ctx, r.Objects(), BulkOptions{AroundStream: opt.AroundStream})
		for _, o := range small {
			if _, err := bulk.Add(o); err != nil {
				return nil, fmt.Errorf("hash-object: %w", err)
			}
		}
		if err := bulk.Flush(); err != nil {
			return nil, fmt.Errorf("hash-object: %w", err)
		}
	}
	for _, i := range large {
		id, n, err := streamFileBlob(ctx, a, bulk, ins[i].name)
		if err != nil {
			return nil, fmt.Errorf("hash-object: %w", err)
		}
		res.Objects[i] = HashedObject{Source: ins[i].name, OID: id.String(), Type: objects.TypeBlob, Size: int(n), Written: write}
	}
	return res, nil
}

// hashAlgo picks the hash profile for HashObject.
func hashAlgo(r *Repo, opt HashObjectOptions) (objects.Algo, error) {
	if r == nil {
		if opt.Write {
			return "", fmt.Errorf("hash-object -w: %w", ErrNoRepository)
		}
		if opt.ObjectFormat == "" {
			return objects.BLAKE3, nil
		}
		if !opt.ObjectFormat.Valid() {
			return "", fmt.Errorf("hash-object: unknown object format %q: %w", opt.ObjectFormat, ErrBadInput)
		}
		return opt.ObjectFormat, nil
	}
	if opt.ObjectFormat != "" && opt.ObjectFormat != r.Algo() {
		return "", fmt.Errorf("hash-object: --object-format %s differs from the repository's %s: %w", opt.ObjectFormat, r.Algo(), ErrBadInput)
	}
	return r.Algo(), nil
}

// buildObject makes the object of type t for input bytes under the rules
// documented on HashObjectOptions. Secrets are redacted before hashing
// (SPEC §1.7, ARCHITECTURE §6): a blob through the blob scrub, a JSON body
// through the value walk, so the oid printed names the redacted object,
// exactly as OpenTine's object.put does.
func buildObject(a objects.Algo, t objects.Type, data []byte, canonicalize bool) (*objects.Object, error) {
	if t == objects.TypeBlob {
		return objects.NewBlob(a, objects.RedactBlob(data)), nil
	}
	var v objects.Value
	if !canonicalize {
		o, err := objects.NewObjectFromBody(a, t, 1, data)
		if err != nil {
			return nil, err
		}
		v = o.Value
	} else {
		if err := objects.ScanShape(data, objects.MaxBodyTokens); err != nil {
			return nil, err
		}
		parsed, err := objects.ParseInput(data, objects.ParseOptions{})
		if objects.HasReason(err, objects.ReasonCanonIntegerOverflow) {
			return nil, err
		}
		if err != nil {
			return nil, objects.Errorf(objects.ReasonEnvelopeBodyMalformedJson, "input is not strict JSON: %v", err)
		}
		v = parsed
	}
	return objects.RedactObject(a, t, 1, v)
}

// checkInputStat refuses an input that is a regular file over the object
// bound before a byte of it is read. The bound applies without -w too: an
// oid names an object a repository could hold, and reading gigabytes to
// refuse them afterwards is the cost a stat avoids. Pipes and other
// unsized inputs are bounded while they are read.
func checkInputStat(in any, name string) error {
	s, ok := in.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return nil
	}
	st, err := s.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= objects.MaxLooseObjectSize {
		return nil
	}
	return fmt.Errorf("%s is %d bytes, more than the %d-byte object bound: %w",
		name, st.Size(), int64(objects.MaxLooseObjectSize), ErrBadInput)
}

// readBounded reads one input, refusing anything over the loose object size
// limit before allocating it.
func readBounded(rd io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, objects.MaxLooseObjectSize+1))
	if err != nil {
		return nil, fmt.Errorf("hash-object: read %s: %w", name, err)
	}
	if int64(len(b)) > objects.MaxLooseObjectSize {
		return nil, fmt.Errorf("hash-object: %s is larger than %d bytes: %w", name, int64(objects.MaxLooseObjectSize), ErrBadInput)
	}
	return b, nil
}

// WithCanonicalHint points err, a refusal of non-canonical JSON input,
// at the option that hashes the canonical form instead (hash-object's
// --canonicalize), unless canonicalize says it was given; other errors
// pass unchanged.
func WithCanonicalHint(err error, canonicalize bool) error {
	if err == nil || canonicalize || !objects.HasReason(err, objects.ReasonEnvelopeBodyNonCanonical) {
		return err
	}
	return fmt.Errorf("%w; --canonicalize hashes its canonical form instead", err)
}
