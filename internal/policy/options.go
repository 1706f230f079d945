package policy

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// SigningAlgorithms are the algorithms a bundle signing key may use, as OPA
// names them.
var SigningAlgorithms = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

// Options configure where the Engine's bundles come from and where its
// decisions go. The zero value (plus defaults) evaluates the bundle embedded
// in the binary and keeps decisions in memory only.
type Options struct {
	// BundleDir is a folder laid out as an OPA bundle, read at start and
	// again every PollInterval. Empty: not used.
	BundleDir string
	// BundleURL is a bundle server's URL of a bundle.tar.gz, polled every
	// PollInterval with If-None-Match. Empty: not used.
	BundleURL string
	// PollInterval is the time between two reads of BundleDir or BundleURL.
	PollInterval time.Duration
	// SigningKeyFile, when set, holds the key bundles must be signed with
	// (a PEM public key for RS*, PS* and ES*, the shared secret for HS*):
	// an unsigned or tampered bundle is refused.
	SigningKeyFile string
	// SigningAlgorithm is the key's algorithm, one of SigningAlgorithms.
	SigningAlgorithm string
	// SigningKeyID is the key's ID, as the signatures' "keyid" names it
	// ("default", as `opa build` writes it unless told otherwise).
	SigningKeyID string
	// DecisionLogPath, when set, is a file every decision is appended to as
	// one JSON line.
	DecisionLogPath string
	// DecisionLogSize is how many recent decisions are kept in memory.
	DecisionLogSize int
	// KeepRevisions is how many recent bundle revisions stay compiled for
	// Replay, the current one included.
	KeepRevisions int
}

// Defaults of Options.
const (
	DefaultPollInterval     = time.Minute
	DefaultSigningAlgorithm = "RS256"
	DefaultSigningKeyID     = "default"
	DefaultDecisionLogSize  = 1000
	DefaultKeepRevisions    = 8
)

// AddFlags adds the options' flags to fs, with their defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BundleDir, "policy-bundle-dir", o.BundleDir, "folder laid out as an OPA bundle to evaluate instead of the embedded default (re-read every --policy-bundle-poll-interval)")
	fs.StringVar(&o.BundleURL, "policy-bundle-url", o.BundleURL, "URL of an OPA bundle (bundle.tar.gz) to poll instead of the embedded default")
	fs.DurationVar(&o.PollInterval, "policy-bundle-poll-interval", orDuration(o.PollInterval, DefaultPollInterval), "time between two reads of the policy bundle folder or URL")
	fs.StringVar(&o.SigningKeyFile, "policy-bundle-signing-key", o.SigningKeyFile, "file holding the key policy bundles must be signed with (PEM public key, or HMAC secret); unsigned or tampered bundles are refused")
	fs.StringVar(&o.SigningAlgorithm, "policy-bundle-signing-alg", orString(o.SigningAlgorithm, DefaultSigningAlgorithm), "algorithm of the bundle signing key: "+strings.Join(SigningAlgorithms, ", "))
	fs.StringVar(&o.SigningKeyID, "policy-bundle-signing-key-id", orString(o.SigningKeyID, DefaultSigningKeyID), "ID of the bundle signing key, as the bundle signature's keyid names it")
	fs.StringVar(&o.DecisionLogPath, "policy-decision-log", o.DecisionLogPath, "file every policy decision is appended to as a JSON line (empty: in memory only)")
	fs.IntVar(&o.DecisionLogSize, "policy-decision-log-size", orInt(o.DecisionLogSize, DefaultDecisionLogSize), "number of recent policy decisions kept in memory")
	fs.IntVar(&o.KeepRevisions, "policy-keep-revisions", orInt(o.KeepRevisions, DefaultKeepRevisions), "number of recent policy bundle revisions kept compiled, so that their decisions can be replayed")
}

// Default fills the options' unset fields with their defaults.
func (o *Options) Default() {
	o.PollInterval = orDuration(o.PollInterval, DefaultPollInterval)
	o.SigningAlgorithm = orString(o.SigningAlgorithm, DefaultSigningAlgorithm)
	o.SigningKeyID = orString(o.SigningKeyID, DefaultSigningKeyID)
	o.DecisionLogSize = orInt(o.DecisionLogSize, DefaultDecisionLogSize)
	o.KeepRevisions = orInt(o.KeepRevisions, DefaultKeepRevisions)
}

// Validate returns every field that is not valid, each named with its value
// and what would be.
func (o *Options) Validate() error {
	var errs []error
	if o.BundleDir != "" && o.BundleURL != "" {
		errs = append(errs, fmt.Errorf("bundleDir %q and bundleURL %q: set at most one", o.BundleDir, o.BundleURL))
	}
	if o.BundleURL != "" {
		u, err := url.Parse(o.BundleURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("bundleURL %q: must be an http or https URL with a host", o.BundleURL))
		}
	}
	if (o.BundleDir != "" || o.BundleURL != "") && o.PollInterval < time.Second {
		errs = append(errs, fmt.Errorf("pollInterval %s: must be at least 1s", o.PollInterval))
	}
	if o.SigningKeyFile != "" && !slices.Contains(SigningAlgorithms, o.SigningAlgorithm) {
		errs = append(errs, fmt.Errorf("signingAlgorithm %q: must be one of %s", o.SigningAlgorithm, strings.Join(SigningAlgorithms, ", ")))
	}
	if o.SigningKeyFile != "" && o.SigningKeyID == "" {
		errs = append(errs, errors.New(`signingKeyID "": must name the key when signingKeyFile is set`))
	}
	if o.DecisionLogSize < 1 {
		errs = append(errs, fmt.Errorf("decisionLogSize %d: must be at least 1", o.DecisionLogSize))
	}
	if o.KeepRevisions < 1 {
		errs = append(errs, fmt.Errorf("keepRevisions %d: must be at least 1", o.KeepRevisions))
	}
	return errors.Join(errs...)
}

func orDuration(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
