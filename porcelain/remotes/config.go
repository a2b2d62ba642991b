package remotes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// ConfigFile is the remotes' configuration, in the repository directory
// beside config.json. OpenTine never reads it (config.json stays
// OpenTine's bytes); it holds names, URLs and the names of environment
// variables, never a token.
const ConfigFile = "remotes.json"

// MaxConfigBytes bounds the configuration file read.
const MaxConfigBytes = 1 << 20

// Errors of the remote configuration.
var (
	// ErrNoRemote means a remote name is not configured.
	ErrNoRemote = errors.New("no such remote")
	// ErrRemoteExists means remote add named a configured remote.
	ErrRemoteExists = errors.New("remote already exists")
	// ErrBadConfig means remotes.json or a value for it is invalid.
	ErrBadConfig = errors.New("invalid remote configuration")
)

// validRemoteName reports a remote name: 1 to 64 of [a-z0-9-], not
// starting with '-' (one case-folded ref name segment).
func validRemoteName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validEnvName reports an environment variable name: [A-Za-z_][A-Za-z0-9_]*,
// at most 128 bytes.
func validEnvName(s string) bool {
	if s == "" || len(s) > 128 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Remote is one configured remote.
type Remote struct {
	// Name is what tracking refs are filed under: remotes/<Name>/...
	Name string `json:"name"`
	// URL is a path, file://, http(s):// or s3:// URL.
	URL string `json:"url"`
	// TokenEnv names the environment variable holding the bearer token
	// (HTTP); the token itself is never stored.
	TokenEnv string `json:"token_env,omitempty"`
	// Endpoint is the S3 endpoint URL, when not from the environment.
	Endpoint string `json:"endpoint,omitempty"`
}

// configFile is remotes.json.
type configFile struct {
	Version int               `json:"version"`
	Remotes map[string]Remote `json:"remotes"`
}

// configPath returns remotes.json's path in r.
func configPath(r *plumbing.Repo) string { return filepath.Join(r.Root(), ConfigFile) }

// loadConfig reads remotes.json (absent: no remotes), checking every entry.
func loadConfig(r *plumbing.Repo) (*configFile, error) {
	b, err := fsutil.ReadFileNoSymlinks(r.Root(), ConfigFile, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &configFile{Version: 1, Remotes: map[string]Remote{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	var c configFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", ConfigFile, ErrBadConfig, err)
	}
	if c.Version != 1 {
		return nil, fmt.Errorf("%s: version %d: %w (this tine reads version 1)", ConfigFile, c.Version, ErrBadConfig)
	}
	if c.Remotes == nil {
		c.Remotes = map[string]Remote{}
	}
	for name, rm := range c.Remotes {
		if rm.Name != name {
			return nil, fmt.Errorf("%s: entry %q names itself %q: %w", ConfigFile, name, rm.Name, ErrBadConfig)
		}
		if err := checkRemote(rm); err != nil {
			return nil, fmt.Errorf("%s: %w", ConfigFile, err)
		}
	}
	return &c, nil
}

// save writes remotes.json atomically (temporary file, fsync, rename,
// directory fsync). Concurrent edits of the file are last-writer-wins.
func (c *configFile) save(r *plumbing.Repo) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(configPath(r), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", ConfigFile, err)
	}
	return nil
}

// checkRemote validates one entry.
func checkRemote(rm Remote) error {
	if !validRemoteName(rm.Name) {
		return fmt.Errorf("remote name %q: want lower-case letters, digits and '-' (it becomes refs/remotes/NAME/, and ref names are case-folded): %w", rm.Name, ErrBadConfig)
	}
	u, err := remote.ParseURL(rm.URL)
	if err != nil {
		return fmt.Errorf("remote %s: %w", rm.Name, err)
	}
	if u.User != nil {
		return fmt.Errorf("remote %s: the URL carries user information; tokens come only from an environment variable (--token-env VAR): %w", rm.Name, ErrBadConfig)
	}
	if rm.TokenEnv != "" && !validEnvName(rm.TokenEnv) {
		return fmt.Errorf("remote %s: token variable %q is not an environment variable name: %w", rm.Name, rm.TokenEnv, ErrBadConfig)
	}
	if rm.Endpoint != "" {
		if eu, err := remote.ParseURL(rm.Endpoint); err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.User != nil {
			return fmt.Errorf("remote %s: endpoint %q: want an http(s) URL without user information: %w", rm.Name, rm.Endpoint, ErrBadConfig)
		}
	}
	return nil
}

// List returns the configured remotes, sorted by name.
func List(r *plumbing.Repo) ([]Remote, error) {
	c, err := loadConfig(r)
	if err != nil {
		return nil, err
	}
	out := make([]Remote, 0, len(c.Remotes))
	for _, rm := range c.Remotes {
		out = append(out, rm)
	}
	slices.SortFunc(out, func(a, b Remote) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Get returns the remote called name.
func Get(r *plumbing.Repo, name string) (Remote, error) {
	c, err := loadConfig(r)
	if err != nil {
		return Remote{}, err
	}
	rm, ok := c.Remotes[name]
	if !ok {
		return Remote{}, fmt.Errorf("remote %q: %w (tine remote list shows the configured ones)", name, ErrNoRemote)
	}
	return rm, nil
}

// Add configures a remote. A path URL is stored absolute, so the remote
// means the same repository from any directory.
func Add(r *plumbing.Repo, rm Remote) (Remote, error) {
	if !strings.Contains(rm.URL, "://") && rm.URL != "" {
		u, err := remote.ParseURL(rm.URL)
		if err != nil {
			return Remote{}, err
		}
		rm.URL = filepath.FromSlash(u.Path)
	}
	if err := checkRemote(rm); err != nil {
		return Remote{}, err
	}
	c, err := loadConfig(r)
	if err != nil {
		return Remote{}, err
	}
	if _, ok := c.Remotes[rm.Name]; ok {
		return Remote{}, fmt.Errorf("remote %q: %w (tine remote remove %s first)", rm.Name, ErrRemoteExists, rm.Name)
	}
	c.Remotes[rm.Name] = rm
	return rm, c.save(r)
}

// Remove drops a remote from the configuration and deletes its tracking
// refs (refs/remotes/<name>/...), as git remote remove does.
func Remove(r *plumbing.Repo, name string) (Remote, []string, error) {
	c, err := loadConfig(r)
	if err != nil {
		return Remote{}, nil, err
	}
	rm, ok := c.Remotes[name]
	if !ok {
		return Remote{}, nil, fmt.Errorf("remote %q: %w", name, ErrNoRemote)
	}
	delete(c.Remotes, name)
	if err := c.save(r); err != nil {
		return Remote{}, nil, err
	}
	removed, err := deleteTracking(r, name)
	return rm, removed, err
}
