package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/meridian-dev/meridian/policies"
)

const testSecret = "a shared secret the bundle server and meridian both hold"

// testBundle is the default bundle with another revision and, when price is
// above zero, every Azure size at that price.
func testBundle(t *testing.T, revision string, price float64) *bundle.Bundle {
	t.Helper()
	b, err := readFS(policies.Bundle, nil, "the default bundle")
	if err != nil {
		t.Fatal(err)
	}
	b.Manifest.Revision = revision
	if price > 0 {
		clouds := b.Data["meridian"].(map[string]any)["clouds"].(map[string]any)
		for _, prices := range clouds["instances"].(map[string]any)["azure"].(map[string]any)["pricePerHour"].(map[string]any) {
			for size := range prices.(map[string]any) {
				prices.(map[string]any)[size] = price
			}
		}
	}
	return b
}

// pack writes b as a bundle.tar.gz, signed with secret when it is set.
func pack(t *testing.T, b *bundle.Bundle, secret string) []byte {
	t.Helper()
	if secret != "" {
		if err := b.GenerateSignature(bundle.NewSigningConfig(secret, "HS256", ""), DefaultSigningKeyID, false); err != nil {
			t.Fatalf("failed to sign bundle: %v", err)
		}
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(*b); err != nil {
		t.Fatalf("failed to write bundle: %v", err)
	}
	return buf.Bytes()
}

// tamper signs b, then changes a data document the signature covers.
func tamper(t *testing.T, b *bundle.Bundle) []byte {
	t.Helper()
	if err := b.GenerateSignature(bundle.NewSigningConfig(testSecret, "HS256", ""), DefaultSigningKeyID, false); err != nil {
		t.Fatal(err)
	}
	clouds := b.Data["meridian"].(map[string]any)["clouds"].(map[string]any)
	clouds["residency"].(map[string]any)["EU"].(map[string]any)["aws"] = []any{"us-east-1"}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(*b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bundleServer serves one bundle at a time with an ETag, answering 304 to
// a matching If-None-Match.
type bundleServer struct {
	mu          sync.Mutex
	body        []byte
	etag        string
	gets        atomic.Int64
	notModified atomic.Int64
}

func (s *bundleServer) set(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := sha256.Sum256(body)
	s.body, s.etag = body, `"`+hex.EncodeToString(sum[:8])+`"`
}

func (s *bundleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	body, etag := s.body, s.etag
	s.mu.Unlock()
	s.gets.Add(1)
	if r.Header.Get("If-None-Match") == etag {
		s.notModified.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/gzip")
	_, _ = w.Write(body)
}

func writeKey(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bundle.key")
	if err := os.WriteFile(path, []byte(testSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBundleServer(t *testing.T) {
	key := writeKey(t)
	tests := []struct {
		name string
		// serve is what the server holds after the good bundle "r1".
		serve        func(t *testing.T) []byte
		wantRevision string
		wantErr      error
		wantStage    string
	}{
		{
			name:         "a new signed revision is loaded",
			serve:        func(t *testing.T) []byte { return pack(t, testBundle(t, "r2", 0), testSecret) },
			wantRevision: "r2",
		},
		{
			name:         "a tampered bundle is refused and the last good stays",
			serve:        func(t *testing.T) []byte { return tamper(t, testBundle(t, "r2", 0)) },
			wantRevision: "r1",
			wantErr:      ErrBundle,
			wantStage:    stageRead,
		},
		{
			name:         "an unsigned bundle is refused when a key is configured",
			serve:        func(t *testing.T) []byte { return pack(t, testBundle(t, "r2", 0), "") },
			wantRevision: "r1",
			wantErr:      ErrBundle,
			wantStage:    stageRead,
		},
		{
			name:         "a bundle signed with another key is refused",
			serve:        func(t *testing.T) []byte { return pack(t, testBundle(t, "r2", 0), "another secret") },
			wantRevision: "r1",
			wantErr:      ErrBundle,
			wantStage:    stageRead,
		},
		{
			name: "a bundle that does not compile is refused and the last good stays",
			serve: func(t *testing.T) []byte {
				b := testBundle(t, "r2", 0)
				const path, src = "/meridian/vm/broken.rego", "package meridian.vm\n\nbroken := undefined_function(1)\n"
				m, err := ast.ParseModuleWithOpts(path, src, ast.ParserOptions{RegoVersion: ast.RegoV1})
				if err != nil {
					t.Fatal(err)
				}
				b.Modules = append(b.Modules, bundle.ModuleFile{URL: path, Path: path, Raw: []byte(src), Parsed: m})
				return pack(t, b, testSecret)
			},
			wantRevision: "r1",
			wantErr:      ErrBundle,
			wantStage:    stageCompile,
		},
		{
			name:         "a server error keeps the last good",
			serve:        func(t *testing.T) []byte { return nil },
			wantRevision: "r1",
			wantErr:      ErrBundle,
			wantStage:    stageDownload,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := &bundleServer{}
			srv.set(pack(t, testBundle(t, "r1", 0), testSecret))
			var failing atomic.Bool
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if failing.Load() {
					http.Error(w, "bundle store unavailable", http.StatusServiceUnavailable)
					return
				}
				srv.ServeHTTP(w, r)
			}))
			defer hs.Close()
			reg := prometheus.NewRegistry()
			e, err := New(t.Context(), Options{BundleURL: hs.URL + "/bundle.tar.gz", SigningKeyFile: key, SigningAlgorithm: "HS256"}, WithRegisterer(reg))
			if err != nil {
				t.Fatal(err)
			}
			if got := e.Status(); got.Revision != "r1" || got.Err != nil {
				t.Fatalf("after New: revision %q, error %v; want r1 and no error", got.Revision, got.Err)
			}
			// Nothing changed: the server answers 304 and nothing is loaded.
			if err := e.Reload(t.Context()); err != nil {
				t.Fatalf("Reload of an unchanged bundle: %v", err)
			}
			if srv.notModified.Load() != 1 {
				t.Errorf("server answered %d times 304, want 1", srv.notModified.Load())
			}

			if body := tc.serve(t); body != nil {
				srv.set(body)
			} else {
				failing.Store(true)
			}
			err = e.Reload(t.Context())
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Reload() error = %v, want %v", err, tc.wantErr)
			}
			st := e.Status()
			if diff := cmp.Diff(tc.wantRevision, st.Revision); diff != "" {
				t.Errorf("revision (-want +got):\n%s", diff)
			}
			if !errors.Is(st.Err, tc.wantErr) {
				t.Errorf("Status().Err = %v, want %v", st.Err, tc.wantErr)
			}
			if tc.wantStage != "" {
				if got := counterValue(t, e.metrics.loadFailures.WithLabelValues(tc.wantStage)); got != 1 {
					t.Errorf("load failures at stage %s = %v, want 1", tc.wantStage, got)
				}
			}
			// The engine still decides, with the revision it kept.
			d, err := e.VM(t.Context(), VMInput{Name: "ns/vm", CPUMilli: 2000, MemoryMiB: 8192, Residency: "EU"})
			if err != nil {
				t.Fatal(err)
			}
			if d.Revision != tc.wantRevision {
				t.Errorf("decision revision %q, want %q", d.Revision, tc.wantRevision)
			}
		})
	}
}

// TestHotReloadUnderLoad swaps revisions while evaluations run: none fails,
// and every decision names a revision that was current while it ran. Run it
// with -race.
func TestHotReloadUnderLoad(t *testing.T) {
	srv := &bundleServer{}
	srv.set(pack(t, testBundle(t, "r1", 0), ""))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	e, err := New(t.Context(), Options{BundleURL: hs.URL}, WithDecisionWriter(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	in := VMInput{Name: "ns/vm", CPUMilli: 2000, MemoryMiB: 8192, OriginRegion: "westeurope", MaxLatencyMs: 30}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var evals, failures, onLast atomic.Int64
	seen := make([]map[string]int, 4)
	for w := range seen {
		seen[w] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				d, err := e.VM(t.Context(), in)
				evals.Add(1)
				if err != nil || len(d.Candidates) == 0 {
					failures.Add(1)
					continue
				}
				seen[w][d.Revision]++
				if d.Revision == "r4" {
					onLast.Add(1)
				}
			}
		}()
	}
	for _, rev := range []string{"r2", "r3", "r4"} {
		time.Sleep(20 * time.Millisecond)
		srv.set(pack(t, testBundle(t, rev, 0.5), ""))
		if err := e.Reload(t.Context()); err != nil {
			t.Fatalf("Reload to %s: %v", rev, err)
		}
	}
	// Evaluations keep running until some have used the last revision (under
	// -race one evaluation takes tens of milliseconds).
	for deadline := time.Now().Add(30 * time.Second); onLast.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	if failures.Load() != 0 {
		t.Errorf("%d of %d evaluations failed during reloads", failures.Load(), evals.Load())
	}
	if got := e.Revision(); got != "r4" {
		t.Errorf("revision after reloads = %q, want r4", got)
	}
	all := map[string]bool{}
	for _, s := range seen {
		for rev := range s {
			all[rev] = true
		}
	}
	for rev := range all {
		if rev != "r1" && rev != "r2" && rev != "r3" && rev != "r4" {
			t.Errorf("a decision names revision %q, which was never loaded", rev)
		}
	}
	if !all["r4"] {
		t.Errorf("no decision was made with the new revision r4 (saw %v)", all)
	}
}

func TestBundleDir(t *testing.T) {
	dir := t.TempDir()
	// The repository's policies folder is a bundle as it is: copy it.
	if err := os.CopyFS(dir, policies.Bundle); err != nil {
		t.Fatal(err)
	}
	e, err := New(t.Context(), Options{BundleDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if st := e.Status(); st.Err != nil {
		t.Fatalf("Status().Err = %v", st.Err)
	}
	manifest := filepath.Join(dir, ".manifest")
	if err := os.WriteFile(manifest, []byte(`{"revision": "local-2", "roots": ["meridian"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Status{Revision: "local-2", Source: dir}, e.Status(), cmpIgnoreTimes); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}
