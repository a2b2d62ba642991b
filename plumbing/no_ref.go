package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// NoRefError is Repo.RefName's error for a short name (no "/") that no
// existing ref has under any namespace it is tried in. It unwraps to
// ErrUnknownRevision and to the ref-name error of the name as given (its
// missing namespace), for callers that test for either.
type NoRefError struct {
	// Name is the short name as given.
	Name string
	// Tried lists the full names looked up, in order.
	Tried []string
	// Creating says the name was given as a ref to write, which a short
	// name cannot create: the message says to give the full name.
	Creating bool
	err      error
}

// Error says that no ref has the name, and where it was looked for.
func (e *NoRefError) Error() string {
	msg := fmt.Sprintf("no ref is named %q (tried %s)", e.Name, strings.Join(e.Tried, ", "))
	if e.Creating {
		msg += fmt.Sprintf("; to create one, give its full name, such as heads/%s", e.Name)
	}
	return msg
}

// creating marks err, when it is a *NoRefError, as one of a ref to write.
func creating(err error) error {
	var nr *NoRefError
	if errors.As(err, &nr) {
		nr.Creating = true
	}
	return err
}

// WriteRefName is RefName for a ref about to be written: a short name no
// ref has says to give the full name, which creates it.
func (r *Repo) WriteRefName(ctx context.Context, s string) (string, error) {
	name, err := r.RefName(ctx, s)
	return name, creating(err)
}

// Unwrap returns ErrUnknownRevision and the name's ref-name error.
func (e *NoRefError) Unwrap() []error { return []error{ErrUnknownRevision, e.err} }

// noRef builds the NoRefError of short name s, whose ref-name error is err.
func noRef(s string, err error) *NoRefError {
	tried := make([]string, len(dwimNamespaces))
	for i, ns := range dwimNamespaces {
		tried[i] = ns + "/" + s
	}
	return &NoRefError{Name: s, Tried: tried, err: err}
}
