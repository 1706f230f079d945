package advisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/meridian-dev/meridian/internal/optimizer"
)

// Server is the advisor's HTTP API. It is safe for concurrent use.
type Server struct {
	store Store
	clock func() time.Time

	mu  sync.Mutex
	opt *optimizer.Optimizer
	req InitRequest
}

// NewServer returns a server keeping its knowledge base in store and
// reading the time from clock (time.Now if nil).
func NewServer(store Store, clock func() time.Time) *Server {
	if clock == nil {
		clock = time.Now
	}
	return &Server{store: store, clock: clock}
}

// Handler returns the API's routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /init", s.handleInit)
	mux.HandleFunc("POST /sample", s.handleSample)
	mux.HandleFunc("GET /advice", s.handleAdvice)
	mux.HandleFunc("GET /report", s.handleReport)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	return mux
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = json.Marshal(Error{Error: fmt.Sprintf("failed to encode the response: %v", err)})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	// A write error means the client went away; there is no one to tell.
	_, _ = w.Write(append(data, '\n'))
}

func writeError(w http.ResponseWriter, code int, err error) {
	body := Error{Error: err.Error()}
	var br *BadRequest
	if errors.As(err, &br) {
		body.Field = br.Field
	}
	writeJSON(w, code, body)
}

// InitResponse is the body of a successful POST /init.
type InitResponse struct {
	Phase         optimizer.Phase `json:"phase"`
	KnowledgeBase string          `json:"knowledge_base"`
	Samples       int             `json:"samples"`
	// Config is the configuration in effect, defaults filled in.
	Config configView `json:"config"`
}

type configView struct {
	TrainingSamplesRequired int     `json:"m_opt_init_training_samples_required"`
	MaxUpscaleDelta         int     `json:"m_opt_init_max_upscale_delta"`
	MaxDownscaleDelta       int     `json:"m_opt_init_max_downscale_delta"`
	FreezeInterval          float64 `json:"m_opt_init_advice_freeze_interval"`
	KnowledgeBaseSize       int     `json:"m_opt_init_knowledge_base_size"`
	MaxHoldoutError         float64 `json:"m_opt_init_max_holdout_error"`
	SafetyMargin            float64 `json:"m_opt_init_safety_margin"`
	AdviceMargin            float64 `json:"m_opt_init_advice_margin"`
	RetrainEvery            int     `json:"m_opt_init_retrain_every"`
	Hidden                  int     `json:"m_opt_init_hidden_units"`
	Seed                    uint64  `json:"m_opt_init_seed"`
	Rule                    string  `json:"m_opt_init_rule"`
	MinInstances            int     `json:"min_instances"`
	MaxInstances            int     `json:"max_instances"`
}

func viewOf(c optimizer.Config) configView {
	return configView{
		TrainingSamplesRequired: c.TrainingSamplesRequired, MaxUpscaleDelta: c.MaxUpscaleDelta, MaxDownscaleDelta: c.MaxDownscaleDelta,
		FreezeInterval: c.FreezeInterval.Seconds(), KnowledgeBaseSize: c.KnowledgeBaseSize, MaxHoldoutError: c.MaxHoldoutError,
		SafetyMargin: c.SafetyMargin, AdviceMargin: c.AdviceMargin, RetrainEvery: c.RetrainEvery, Hidden: c.Hidden,
		Seed: c.Seed, Rule: string(c.Rule), MinInstances: c.MinReplicas, MaxInstances: c.MaxReplicas,
	}
}

func (s *Server) handleInit(w http.ResponseWriter, r *http.Request) {
	var req InitRequest
	if err := decode(r.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	cfg, mode, err := req.Config()
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	var kb []optimizer.Sample
	if mode == UseExisting {
		stored, err := s.store.Load()
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		if stored != nil && len(stored.Samples) > 0 {
			if !stored.Holds(cfg) {
				writeError(w, http.StatusBadRequest, bad("constants.m_opt_init_knowledge_base",
					"use_existing, but the stored knowledge base holds inputs %v and target %q, not %v and %q: send build_new to start over",
					stored.Inputs, stored.Target, cfg.Inputs, cfg.Target.Name))
				return
			}
			kb = stored.Samples
		}
	}
	opt, err := optimizer.New(cfg, kb)
	if err != nil {
		writeError(w, http.StatusBadRequest, bad("constants.m_opt_init_knowledge_base", "the stored knowledge base does not fit: %v", err))
		return
	}
	if err := s.store.Save(&KnowledgeBase{Inputs: cfg.Inputs, Target: cfg.Target.Name, Samples: slices.Clone(opt.Samples())}); err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	s.mu.Lock()
	s.opt, s.req = opt, req
	phase, _ := opt.Phase()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, InitResponse{Phase: phase, KnowledgeBase: mode, Samples: len(kb), Config: viewOf(cfg)})
}

// SampleResponse is the body of a successful POST /sample.
type SampleResponse struct {
	Phase   optimizer.Phase `json:"phase"`
	Samples int             `json:"samples"`
	Why     string          `json:"why"`
}

var errNotInitialized = errors.New("the advisor is not initialized: POST /init first")

func (s *Server) handleSample(w http.ResponseWriter, r *http.Request) {
	var req SampleRequest
	if err := decode(r.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opt == nil {
		writeError(w, http.StatusConflict, errNotInitialized)
		return
	}
	cfg := s.opt.Config()
	sample, err := req.toSample(cfg, s.clock())
	if err == nil {
		err = s.opt.Observe(sample)
		var fe *optimizer.FieldError
		if errors.As(err, &fe) {
			err = bad("sample."+fe.Field, "%v: %s", fe.Value, fe.Valid)
		}
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	if err := s.store.Save(&KnowledgeBase{Inputs: cfg.Inputs, Target: cfg.Target.Name, Samples: s.opt.Samples()}); err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the sample was learned but not persisted: %w", err))
		return
	}
	phase, why := s.opt.Phase()
	writeJSON(w, http.StatusOK, SampleResponse{Phase: phase, Samples: len(s.opt.Samples()), Why: why})
}

func (s *Server) handleAdvice(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opt == nil {
		writeJSON(w, http.StatusOK, optimizer.Advice{Phase: optimizer.PhaseTraining, ErrorMsg: errNotInitialized.Error(), Time: s.clock()})
		return
	}
	a, _ := s.opt.Advise(s.clock())
	writeJSON(w, http.StatusOK, a)
}
