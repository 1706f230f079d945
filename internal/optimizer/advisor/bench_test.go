package advisor

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/meridian-dev/meridian/internal/optimizer/eval"
)

// BenchmarkAdvice measures GET /advice over loopback HTTP with a full
// knowledge base (1,000 samples, the default size) and trained models.
func BenchmarkAdvice(b *testing.B) {
	h := NewServer(&MemStore{}, nil).Handler()
	post := func(p string, v any) {
		data, _ := json.Marshal(v)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, p, strings.NewReader(string(data))))
		if rec.Code != 200 {
			b.Fatalf("%s: %d %s", p, rec.Code, rec.Body)
		}
	}
	body := initBody("meridian", 40)
	body["constants"].(map[string]any)["m_opt_init_retrain_every"] = 1000
	post("/init", body)
	app := eval.App{ServiceRate: 10, Timeout: 2, Noise: 0.02}
	rng := rand.New(rand.NewPCG(1, 1))
	load := eval.Load{Base: 60, Amplitude: 0.5}.Series(1000, time.Minute, 1)
	for i, lambda := range load {
		c := 6 + i%7
		in, lat := app.Observe(rng, lambda, c)
		post("/sample", sampleBody(in, lat, c, time.Unix(int64(60*i), 0)))
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	b.ResetTimer()
	for b.Loop() {
		resp, err := client.Get(srv.URL + "/advice")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("advice: %d", resp.StatusCode)
		}
	}
}
