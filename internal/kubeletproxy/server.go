package kubeletproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Server serves the kubelet API of virtual nodes (see the package
// documentation). Its zero value is not usable: New makes one.
type Server struct {
	locator Locator
	authn   authenticator.Request
	authz   authorizer.Authorizer
	// run keeps what the guard needs up to date (the client CA) until the
	// server stops; caLoaded says whether the client CA was read.
	run      func(ctx context.Context)
	caLoaded func() bool
	tls      *tls.Config
}

// located is the pod a request was authorized for and its twin.
type located struct {
	namespace, pod string
	twin           Twin
}

// Handler is the server's HTTP handler: authentication, location of the
// pod's twin, authorization, then the library's kubelet routes.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.guard)
}

func (s *Server) guard(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	resp, ok, err := s.authn.AuthenticateRequest(r)
	switch {
	case err != nil:
		http.Error(w, fmt.Sprintf("Unauthorized: %v", err), http.StatusUnauthorized)
		return
	case !ok && r.TLS != nil && len(r.TLS.PeerCertificates) > 0:
		http.Error(w, fmt.Sprintf("Unauthorized: the client certificate of %q is not signed by the cluster's client CA", r.TLS.PeerCertificates[0].Subject.CommonName), http.StatusUnauthorized)
		return
	case !ok:
		http.Error(w, "Unauthorized: a client certificate of the cluster's client CA or a bearer token is required", http.StatusUnauthorized)
		return
	}
	namespace, pod, ok := podOf(r.URL.Path)
	if !ok {
		http.Error(w, fmt.Sprintf("%s is not served by a virtual node: only containerLogs, exec, attach and portForward of an offloaded pod are", r.URL.Path), http.StatusNotFound)
		return
	}
	twin, err := s.locator.Locate(ctx, namespace, pod)
	switch {
	case errors.Is(err, ErrNotOffloaded):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case errors.Is(err, ErrProviderNotServed):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		http.Error(w, fmt.Sprintf("failed to find the twin of pod %s/%s: %v", namespace, pod, err), http.StatusInternalServerError)
		return
	}
	attrs := authorizer.AttributesRecord{
		User: resp.User, Verb: verbOf(r.Method), APIVersion: "v1", Resource: "nodes", Subresource: "proxy",
		Name: twin.Node, ResourceRequest: true, Path: r.URL.Path,
	}
	decision, reason, err := s.authz.Authorize(ctx, attrs)
	if decision != authorizer.DecisionAllow {
		msg := fmt.Sprintf("Forbidden: user %q cannot %s nodes/proxy of node %q", resp.User.GetName(), attrs.Verb, twin.Node)
		if reason != "" {
			msg += ": " + reason
		}
		if err != nil {
			msg += fmt.Sprintf(" (%v)", err)
		}
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	log.FromContext(ctx).V(1).Info("Serving kubelet request of an offloaded pod", "path", r.URL.Path, "user", resp.User.GetName(),
		"twin", twin.Namespace+"/"+twin.Name)
	podHandler(located{namespace: namespace, pod: pod, twin: twin}).ServeHTTP(w, r)
}

// podOf is the namespace and name of the pod a kubelet path is about, for
// the routes served.
func podOf(path string) (namespace, pod string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 4 && (parts[0] == "containerLogs" || parts[0] == "exec" || parts[0] == "attach"):
	case len(parts) == 3 && parts[0] == "portForward":
	default:
		return "", "", false
	}
	if parts[1] == "" || parts[2] == "" {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// verbOf is the verb kubelet authorizes an HTTP method as.
func verbOf(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	default:
		return "get"
	}
}

// twinOf is the twin of the pod the guard authorized the request for;
// the library passes the pod as its router read it from the path, which
// must be the one the guard read.
func (l located) twinOf(namespace, pod string) (Twin, error) {
	if l.namespace != namespace || l.pod != pod {
		return Twin{}, errdefs.NotFoundf("pod %s/%s was not the one authorized", namespace, pod)
	}
	return l.twin, nil
}

// streamTimeout bounds how long a stream may be idle, and how long its
// setup may take, as kubelet's defaults (4 h idle, 30 s to set up).
const (
	streamIdleTimeout     = 4 * time.Hour
	streamCreationTimeout = 30 * time.Second
)

// podHandler is the library's kubelet routes over the provider's API, for
// one request authorized for l (the library's port forwarding does not
// pass the request's context on, so the twin is bound here).
func podHandler(l located) http.Handler {
	return api.PodHandler(api.PodHandlerConfig{
		GetContainerLogs: func(ctx context.Context, namespace, pod, container string, o api.ContainerLogOpts) (io.ReadCloser, error) {
			t, err := l.twinOf(namespace, pod)
			if err != nil {
				return nil, err
			}
			rc, err := logs(ctx, t, container, o)
			return rc, asLibraryError(err)
		},
		RunInContainer: func(ctx context.Context, namespace, pod, container string, cmd []string, io api.AttachIO) error {
			t, err := l.twinOf(namespace, pod)
			if err != nil {
				return err
			}
			return stream(ctx, t, container, cmd, io)
		},
		AttachToContainer: func(ctx context.Context, namespace, pod, container string, io api.AttachIO) error {
			t, err := l.twinOf(namespace, pod)
			if err != nil {
				return err
			}
			return stream(ctx, t, container, nil, io)
		},
		PortForward: func(ctx context.Context, namespace, pod string, port int32, conn io.ReadWriteCloser) error {
			t, err := l.twinOf(namespace, pod)
			if err != nil {
				return err
			}
			return forward(ctx, t, port, conn)
		},
		StreamIdleTimeout:     streamIdleTimeout,
		StreamCreationTimeout: streamCreationTimeout,
	}, false)
}

// asLibraryError tells the library what a provider's refusal means, so
// that the caller gets the provider's status code class and message.
func asLibraryError(err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return errdefs.AsNotFound(err)
	case apierrors.IsBadRequest(err), apierrors.IsInvalid(err):
		return errdefs.AsInvalidInput(err)
	}
	return err
}

// caReadTimeout bounds reading the client CA at start.
const caReadTimeout = time.Minute

// Serve serves on l, over TLS, once it read the client CA, until ctx
// ends; it then stops accepting and ends the streams in progress.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.run(runCtx)
	// Until the client CA is read, every client certificate would be
	// refused.
	err := wait.PollUntilContextTimeout(runCtx, 100*time.Millisecond, caReadTimeout, true, func(context.Context) (bool, error) {
		return s.caLoaded(), nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("kubelet endpoint of the virtual nodes: the cluster's client CA was not read within %s: %w", caReadTimeout, err)
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		TLSConfig:         s.tls,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return runCtx },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(l, "", "") }()
	select {
	case err := <-errc:
		return fmt.Errorf("kubelet endpoint of the virtual nodes stopped: %w", err)
	case <-ctx.Done():
	}
	cancel()
	shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close()
	}
	return nil
}
