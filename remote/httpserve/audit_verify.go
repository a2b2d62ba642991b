package httpserve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// The statuses of GET audit/verify (spec §5.8). tine never answers
// "legacy-unverified": it has no older, unchained audit format.
const (
	auditVerified = "verified"
	auditInvalid  = "invalid"
)

// verify recomputes the whole chain, oldest segment first, streaming one
// row at a time: every row must be the server's canonical encoding, carry
// a MAC that holds, follow the row before by seq and prev, and the last
// row must be the one the authenticated head names. The first row of the
// oldest segment present anchors the chain (its prev is trusted unless it
// is seq 1), so archiving the oldest segments keeps the rest verifiable.
// It returns "" when the chain holds, else why not.
func (l *auditLog) verify() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	unlock, err := flockPath(l.path(auditLockFile))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrAudit, err)
	}
	defer unlock()
	h, err := l.readHead()
	if err != nil {
		return "the head cannot be read or authenticated", nil
	}
	var last *auditRow
	why, err := l.scanRows(func(row *auditRow) string {
		prev := last
		last = row
		switch {
		case prev == nil && row.Seq == 1 && row.Prev != zeroMAC:
			return "the first row does not start the chain"
		case prev != nil && row.Seq != prev.Seq+1:
			return fmt.Sprintf("row %d follows row %d", row.Seq, prev.Seq)
		case prev != nil && row.Prev != prev.MAC:
			return fmt.Sprintf("row %d is not linked to row %d", row.Seq, prev.Seq)
		}
		return ""
	})
	if why != "" || err != nil {
		return why, err
	}
	switch {
	case last == nil && h.Seq != 0:
		return fmt.Sprintf("the head names row %d but the log holds none", h.Seq), nil
	case last != nil && (last.Seq != h.Seq || last.MAC != h.MAC):
		return fmt.Sprintf("the last row is %d but the head names row %d", last.Seq, h.Seq), nil
	}
	// The rows above are linked to each other; only the head knows where
	// audit/log began, so rows cut from its front are found here (with a
	// segment before it, the link to that segment's last row breaks too).
	if h.First != 0 {
		fr, err := firstRow(l.path(auditLogFile), l.key)
		if err != nil {
			return fmt.Sprintf("log: %v", err), nil
		}
		if fr == nil || fr.Seq != h.First {
			got := "no row"
			if fr != nil {
				got = fmt.Sprintf("row %d", fr.Seq)
			}
			return fmt.Sprintf("log starts with %s but the head says it starts with row %d: rows were cut from its front", got, h.First), nil
		}
	}
	return "", nil
}

// scanRows calls fn with each row of the chain's files, oldest first,
// and stops at the first line that is not a sound row or the first
// complaint of fn, returning why (naming the file and line).
func (l *auditLog) scanRows(fn func(*auditRow) string) (string, error) {
	files, err := l.segments()
	if err != nil {
		return "", err
	}
	for _, p := range files {
		why, err := l.scanFile(p, fn)
		if why != "" || err != nil {
			return why, err
		}
	}
	return "", nil
}

func (l *auditLog) scanFile(p string, fn func(*auditRow) string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrAudit, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, maxAuditRow+1)
	name := filepath.Base(p)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, io.EOF) && len(line) == 0:
			return "", nil
		case errors.Is(err, io.EOF):
			return fmt.Sprintf("%s line %d is torn (no newline)", name, n), nil
		case errors.Is(err, bufio.ErrBufferFull):
			return fmt.Sprintf("%s line %d exceeds %d bytes", name, n, maxAuditRow), nil
		case err != nil:
			return "", fmt.Errorf("%w: %s: %w", ErrAudit, p, err)
		}
		row, err := parseRow(line[:len(line)-1], l.key)
		if err != nil {
			return fmt.Sprintf("%s line %d: %v", name, n, err), nil
		}
		if why := fn(row); why != "" {
			return fmt.Sprintf("%s line %d: %s", name, n, why), nil
		}
	}
}

// verifyReply is the body of GET audit/verify, fields in key order.
type verifyReply struct {
	OK       bool     `json:"ok"`
	Status   string   `json:"status"`
	Warnings []string `json:"warnings"`
}

// auditVerify is GET audit/verify (spec §5.8, admin only). Why a chain is
// invalid goes to the server's log, not to the reply.
func (s *Server) auditVerify(c *call) *httpError {
	why, err := s.audit.verify()
	if err != nil {
		return internal(err.Error())
	}
	warnings, err := s.audit.tornSetAside()
	if err != nil {
		return internal(err.Error())
	}
	reply := verifyReply{OK: why == "", Status: auditVerified, Warnings: warnings}
	if why != "" {
		reply.Status = auditInvalid
		if s.cfg.Log != nil {
			s.cfg.Log("audit/verify: the chain is invalid: " + why)
		}
	}
	c.detail("result", reply.Status)
	writeJSON(c.w, http.StatusOK, reply)
	return nil
}
