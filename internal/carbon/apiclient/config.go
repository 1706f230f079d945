package apiclient

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/meridian-dev/meridian/internal/carbon"
)

// ParseBaseURL returns a service's base URL: raw, or def when raw is empty.
// The error names the source and says what would be valid.
func ParseBaseURL(source, raw, def string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: baseURL %q is not an http(s) URL such as https://host:port", source, raw)
	}
	return u, nil
}

// Lookup returns what a grid zone is called by a service (its location or
// region), from the configured map; the error lists the zones configured
// and wraps carbon.ErrUnknownZone.
func Lookup(source, what, zone string, names map[string]string) (string, error) {
	if n, ok := names[zone]; ok {
		return n, nil
	}
	known := make([]string, 0, len(names))
	for z := range names {
		known = append(known, z)
	}
	sort.Strings(known)
	return "", fmt.Errorf("%s: zone %q has no %s (configured: %s): %w", source, zone, what, strings.Join(known, ", "), carbon.ErrUnknownZone)
}
