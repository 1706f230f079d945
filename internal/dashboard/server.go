package dashboard

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

//go:embed web
var web embed.FS

// pingInterval is how often a watch stream says it is alive.
const pingInterval = 15 * time.Second

// Options configure a Server.
type Options struct {
	// Config reaches the management cluster's API server.
	Config *rest.Config
	// ViewerToken, when true, makes every API request carry a bearer token
	// (Authorization: Bearer ...) and reads with it alone, on Config's
	// server and CA but without Config's credentials. When false the
	// server reads with Config's credentials: those of the person who
	// started `meridian dashboard`.
	ViewerToken bool
}

// Server serves the dashboard's page and its read-only API.
type Server struct {
	opts Options
	mux  *http.ServeMux
}

// New returns a Server; it does not contact the API server.
func New(opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("dashboard: Options.Config is required: the management cluster's API server")
	}
	s := &Server{opts: opts, mux: http.NewServeMux()}
	static, err := fs.Sub(web, "web")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /", http.FileServerFS(static))
	s.mux.HandleFunc("GET /api/config", s.handleConfig)
	s.mux.HandleFunc("GET /api/resources", s.handleResources)
	s.mux.HandleFunc("GET /api/watch", s.handleWatch)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	return s, nil
}

// ServeHTTP serves the page and the API; only GET is answered.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusMethodNotAllowed, "the dashboard is read-only: only GET is served")
		return
	}
	s.mux.ServeHTTP(w, r)
}

// config returns the rest.Config a request reads with: the viewer's token
// on the configured server, or the configured credentials.
func (s *Server) config(r *http.Request) (*rest.Config, error) {
	if !s.opts.ViewerToken {
		return s.opts.Config, nil
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return nil, errUnauthorized
	}
	cfg := rest.AnonymousClientConfig(s.opts.Config)
	cfg.BearerToken = strings.TrimSpace(token)
	return cfg, nil
}

var errUnauthorized = errors.New("this dashboard reads with your own credentials: send a bearer token (Authorization: Bearer ...)")

// handleConfig tells the page whether it must ask for a token.
func (s *Server) handleConfig(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{"viewerToken": s.opts.ViewerToken, "server": s.opts.Config.Host})
}

// served is a resource and whether the API server serves it.
type served struct {
	Resource
	Served bool `json:"served"`
}

// handleResources reports which of Resources the API server serves.
func (s *Server) handleResources(w http.ResponseWriter, r *http.Request) {
	cfg, err := s.config(r)
	if err != nil {
		writeError(w, http.StatusUnauthorized, err.Error())
		return
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]served, 0, len(Resources))
	for _, res := range Resources {
		list, err := dc.ServerResourcesForGroupVersion(res.GVR.GroupVersion().String())
		if err != nil && !apierrors.IsNotFound(err) {
			writeAPIError(w, err)
			return
		}
		ok := false
		if list != nil {
			for _, a := range list.APIResources {
				ok = ok || a.Name == res.GVR.Resource
			}
		}
		out = append(out, served{Resource: res, Served: ok})
	}
	writeJSON(w, out)
}

// message is one line of a watch stream.
type message struct {
	Type     string                      `json:"type"`
	Resource string                      `json:"resource,omitempty"`
	Items    []unstructured.Unstructured `json:"items,omitempty"`
	Object   *unstructured.Unstructured  `json:"object,omitempty"`
	Error    string                      `json:"error,omitempty"`
	// Code is the API server's HTTP status for an ERROR (403: the viewer
	// may not read the resource).
	Code int `json:"code,omitempty"`
}

// handleWatch streams the resources the request names (?resource=a&resource=b)
// on one connection: per resource a SYNC with every object, then its
// changes. One connection for all, because a browser opens at most six to
// one server.
func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request) {
	var wanted []Resource
	for _, name := range r.URL.Query()["resource"] {
		res, ok := lookup(name)
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("resource: %q is not one the dashboard shows; valid: %s", name, names()))
			return
		}
		wanted = append(wanted, res)
	}
	if len(wanted) == 0 {
		writeError(w, http.StatusBadRequest, "resource: name at least one; valid: "+names())
		return
	}
	cfg, err := s.config(r)
	if err != nil {
		writeError(w, http.StatusUnauthorized, err.Error())
		return
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	out := make(chan message)
	for _, res := range wanted {
		go s.stream(ctx, dyn.Resource(res.GVR), res, out)
	}
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	for {
		var m message
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			m = message{Type: "PING"}
		case m = <-out:
		}
		if enc.Encode(m) != nil || rc.Flush() != nil {
			return
		}
	}
}

// stream sends one resource to out until ctx ends: a SYNC, its changes,
// and a new SYNC whenever the watch has to start again from a list (the API
// server ended or expired it). A refused list is sent as an ERROR and ends
// the resource's stream.
func (s *Server) stream(ctx context.Context, ri dynamic.NamespaceableResourceInterface, res Resource, out chan<- message) {
	send := func(m message) bool {
		m.Resource = res.Name
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for ctx.Err() == nil {
		list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: res.LabelSelector})
		if err != nil {
			if ctx.Err() == nil {
				send(message{Type: "ERROR", Error: err.Error(), Code: apiCode(err)})
			}
			return
		}
		if !send(message{Type: "SYNC", Items: list.Items}) {
			return
		}
		rv := list.GetResourceVersion()
		for ctx.Err() == nil {
			if rv, err = s.follow(ctx, ri, res, rv, send); err != nil {
				break
			}
		}
		// The watch expired (410 Gone) or failed: list again after a
		// pause, so that the page never misses a change.
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// follow watches from rv and sends each change until the watch ends; it
// returns the last resourceVersion seen, and an error when the watch must
// be restarted from a new list.
func (s *Server) follow(ctx context.Context, ri dynamic.NamespaceableResourceInterface, res Resource, rv string, send func(message) bool) (string, error) {
	wi, err := ri.Watch(ctx, metav1.ListOptions{LabelSelector: res.LabelSelector, ResourceVersion: rv, AllowWatchBookmarks: true})
	if err != nil {
		return rv, err
	}
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		switch ev.Type {
		case watch.Error:
			return rv, apierrors.FromObject(ev.Object)
		case watch.Bookmark:
			if o, ok := ev.Object.(*unstructured.Unstructured); ok {
				rv = o.GetResourceVersion()
			}
		case watch.Added, watch.Modified, watch.Deleted:
			o, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			rv = o.GetResourceVersion()
			if !send(message{Type: string(ev.Type), Object: o}) {
				return rv, ctx.Err()
			}
		}
	}
	return rv, ctx.Err()
}

func names() string {
	n := make([]string, len(Resources))
	for i, r := range Resources {
		n[i] = r.Name
	}
	return strings.Join(n, ", ")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// writeAPIError passes the API server's refusal on with its status (401,
// 403: what the viewer may not read).
func writeAPIError(w http.ResponseWriter, err error) {
	writeError(w, apiCode(err), err.Error())
}

// apiCode is the API server's HTTP status of err, 502 when it has none.
func apiCode(err error) int {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code != 0 {
		return int(status.Status().Code)
	}
	return http.StatusBadGateway
}
