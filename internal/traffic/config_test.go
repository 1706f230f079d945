package traffic

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		wantErr  error
		wantText []string
	}{
		{name: "valid", cfg: Config{URL: "http://prometheus:9090", Query: defaultQuery}},
		{name: "https with a path prefix", cfg: Config{URL: "https://example.com/prometheus/", Query: defaultQuery, ClusterLabel: "region", Timeout: time.Second}},
		{
			name: "URL that does not parse", cfg: Config{URL: "http://prometheus:port", Query: defaultQuery},
			wantErr: ErrInvalidConfig, wantText: []string{"URL", `"http://prometheus:port"`, "does not parse"},
		},
		{
			name: "empty URL", cfg: Config{Query: defaultQuery},
			wantErr: ErrInvalidConfig, wantText: []string{`URL ""`, "want http or https"},
		},
		{
			name: "URL with another scheme", cfg: Config{URL: "ftp://prometheus", Query: defaultQuery},
			wantErr: ErrInvalidConfig, wantText: []string{`scheme "ftp"`, "want http or https"},
		},
		{
			name: "URL without a host", cfg: Config{URL: "http:///api", Query: defaultQuery},
			wantErr: ErrInvalidConfig, wantText: []string{"no host"},
		},
		{
			name: "URL with a query", cfg: Config{URL: "http://prometheus:9090/?query=up", Query: defaultQuery},
			wantErr: ErrInvalidConfig, wantText: []string{"base URL only"},
		},
		{
			name: "empty query", cfg: Config{URL: "http://prometheus:9090", Query: " "},
			wantErr: ErrInvalidConfig, wantText: []string{"Query is empty", "sum by (cluster)"},
		},
		{
			name: "query that is not a template", cfg: Config{URL: "http://prometheus:9090", Query: `up{namespace="{{.Namespace"}`},
			wantErr: ErrInvalidConfig, wantText: []string{"Query", "not a valid template", "{{.Namespace}} and {{.Name}}"},
		},
		{
			name: "query template with an unknown field", cfg: Config{URL: "http://prometheus:9090", Query: `up{app="{{.App}}"}`},
			wantErr: ErrInvalidConfig, wantText: []string{"Query", "App", "{{.Namespace}} and {{.Name}}"},
		},
		{
			name: "cluster label that is not a label name", cfg: Config{URL: "http://prometheus:9090", Query: defaultQuery, ClusterLabel: "cluster name"},
			wantErr: ErrInvalidConfig, wantText: []string{`ClusterLabel "cluster name"`, "letters, digits and underscores"},
		},
		{
			name: "negative timeout", cfg: Config{URL: "http://prometheus:9090", Query: defaultQuery, Timeout: -time.Second},
			wantErr: ErrInvalidConfig, wantText: []string{"Timeout -1s", "positive duration"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			checkErr(t, err, tc.wantErr, "", tc.wantText)
			if tc.wantErr == nil && p == nil {
				t.Errorf("New() = nil, nil; want a source")
			}
		})
	}
}

func TestQueryURL(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{
			name: "defaults",
			cfg:  Config{URL: "http://prometheus:9090", Query: "up"},
			want: "http://prometheus:9090/api/v1/query?query=sum+by+%28cluster%29+%28up%29&timeout=5",
		},
		{
			name: "path prefix and fractional timeout",
			cfg:  Config{URL: "https://example.com/prometheus/", Query: "up", Timeout: 1500 * time.Millisecond},
			want: "https://example.com/prometheus/api/v1/query?query=sum+by+%28cluster%29+%28up%29&timeout=1.5",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.queryURL("sum by (cluster) (up)")); diff != "" {
				t.Errorf("queryURL() (-want +got):\n%s", diff)
			}
		})
	}
}
