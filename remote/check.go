package remote

import (
	"fmt"
	"net/url"
	"strings"
)

// Config is a remote's configuration as `tine remote add` records it,
// before any secret is read: whether a token variable is named, and the
// S3 endpoint.
type Config struct {
	// Token reports that the remote names a token variable (--token-env).
	Token bool
	// Endpoint is the --endpoint URL, "" when none.
	Endpoint string
}

// Checker checks a parsed URL of its scheme and a configuration without
// contacting anything, so a remote that no later command could open is
// refused when it is added rather than at its first use.
type Checker func(u *url.URL, c Config) error

var checkers = map[string]Checker{}

// RegisterCheck makes Check apply check to URLs of scheme; a transport
// registers it beside its Opener, from an init function.
func RegisterCheck(scheme string, check Checker) {
	openersMu.Lock()
	defer openersMu.Unlock()
	checkers[strings.ToLower(scheme)] = check
}

// Check refuses rawURL with c when no transport handles its scheme or the
// scheme's Checker refuses it. It contacts nothing.
func Check(rawURL string, c Config) error {
	u, err := ParseURL(rawURL)
	if err != nil {
		return err
	}
	openersMu.RLock()
	open, check := openers[u.Scheme], checkers[u.Scheme]
	openersMu.RUnlock()
	if open == nil {
		return fmt.Errorf("%s: %w: no transport for scheme %q (have %s)", rawURL, ErrUnsupportedURL, u.Scheme, strings.Join(Schemes(), ", "))
	}
	if check == nil {
		return nil
	}
	return check(u, c)
}

// checkFile refuses what a path remote cannot use.
func checkFile(u *url.URL, c Config) error {
	if u.Path == "" {
		return fmt.Errorf("file URL %s names no path: %w", u, ErrUnsupportedURL)
	}
	if c.Token || c.Endpoint != "" {
		return fmt.Errorf("%s: a path remote takes no --token-env or --endpoint: %w", u.Path, ErrUnsupportedURL)
	}
	return nil
}
