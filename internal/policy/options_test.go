package policy

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "defaults", opts: Options{}},
		{name: "folder", opts: Options{BundleDir: "/etc/meridian/policies"}},
		{
			name: "folder and URL",
			opts: Options{BundleDir: "/b", BundleURL: "https://bundles.example.com/b.tar.gz"},
			want: `bundleDir "/b" and bundleURL "https://bundles.example.com/b.tar.gz": set at most one`,
		},
		{
			name: "not an http URL",
			opts: Options{BundleURL: "oci://registry/bundle"},
			want: `bundleURL "oci://registry/bundle": must be an http or https URL with a host`,
		},
		{
			name: "poll too often",
			opts: Options{BundleURL: "http://b/x", PollInterval: time.Millisecond},
			want: "pollInterval 1ms: must be at least 1s",
		},
		{
			name: "unknown algorithm",
			opts: Options{SigningKeyFile: "/k", SigningAlgorithm: "MD5"},
			want: `signingAlgorithm "MD5": must be one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512`,
		},
		{
			name: "negative ring",
			opts: Options{DecisionLogSize: -1},
			want: "decisionLogSize -1: must be at least 1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Default()
			got := ""
			if err := tc.opts.Validate(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptionsAddFlags(t *testing.T) {
	var o Options
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{
		"--policy-bundle-url=https://bundles.example.com/meridian.tar.gz",
		"--policy-bundle-poll-interval=30s",
		"--policy-bundle-signing-key=/etc/meridian/bundle.pem",
		"--policy-decision-log=/var/log/meridian/decisions.jsonl",
	}); err != nil {
		t.Fatal(err)
	}
	want := Options{
		BundleURL:        "https://bundles.example.com/meridian.tar.gz",
		PollInterval:     30 * time.Second,
		SigningKeyFile:   "/etc/meridian/bundle.pem",
		SigningAlgorithm: DefaultSigningAlgorithm,
		SigningKeyID:     DefaultSigningKeyID,
		DecisionLogPath:  "/var/log/meridian/decisions.jsonl",
		DecisionLogSize:  DefaultDecisionLogSize,
		KeepRevisions:    DefaultKeepRevisions,
	}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
