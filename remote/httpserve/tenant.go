package httpserve

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/tinehq/tine/plumbing"
)

// tenantDir is the work directory of tenant t's repository (the repository
// itself is its .tine).
func (s *Server) tenantDir(t string) string {
	return filepath.Join(s.cfg.Root, "tenants", t)
}

// repo returns tenant t's repository, opening it once. With create, a
// missing repository is initialised with the server's object format;
// without, a missing one is (nil, nil): a tenant nobody wrote to has no
// refs and no objects. A repository of another object format is refused:
// the capabilities promised one format for every tenant.
func (s *Server) repo(t string, create bool) (*plumbing.Repo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.tenants[t]; r != nil {
		return r, nil
	}
	dir := s.tenantDir(t)
	r, err := plumbing.Open(filepath.Join(dir, plumbing.DirName))
	if err != nil {
		if !errors.Is(err, plumbing.ErrNotRepository) {
			return nil, fmt.Errorf("open tenant %s: %w", t, err)
		}
		if !create {
			return nil, nil
		}
		r, _, err = plumbing.Init(dir, s.cfg.ObjectFormat)
		if err != nil {
			return nil, fmt.Errorf("create tenant %s: %w", t, err)
		}
	}
	if r.Algo() != s.cfg.ObjectFormat {
		_ = r.Close()
		return nil, fmt.Errorf("tenant %s is a %s repository; this server serves %s", t, r.Algo(), s.cfg.ObjectFormat)
	}
	s.tenants[t] = r
	return r, nil
}

// tenantLock returns tenant t's mutex of the given kind ("install" or
// "refs"), made on first use.
func (s *Server) tenantLock(kind, t string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.locks[kind+"/"+t]
	if m == nil {
		m = &sync.Mutex{}
		s.locks[kind+"/"+t] = m
	}
	return m
}
