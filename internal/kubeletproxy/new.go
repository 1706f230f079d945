package kubeletproxy

// The agent's rights the guard needs in the consumer: to ask the API
// server who a caller is and what they may do, and to read its client CA.
//
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Options configure the kubelet endpoint of the virtual nodes.
type Options struct {
	// Address is the address the virtual nodes advertise as their
	// InternalIP, where the consumer's API server reaches this server; it
	// is in the self-signed certificate.
	Address string
	// CertFile and KeyFile are the serving certificate and its key (PEM),
	// read again when they change; both empty means a self-signed
	// certificate for Address, made at start.
	CertFile, KeyFile string
}

// Sentinel errors of New.
var (
	// ErrNoAddress: Options.Address is empty or not an IP address.
	ErrNoAddress = errors.New("kubeletproxy: the advertised address must be an IP address")
	// ErrHalfCertificate: one of Options.CertFile and Options.KeyFile is set
	// without the other.
	ErrHalfCertificate = errors.New("kubeletproxy: the certificate and its key are given together or not at all")
)

// Client CA of the consumer's API server, as kube-apiserver publishes it
// for the servers it delegates authentication to.
const (
	clientCANamespace = "kube-system"
	clientCAConfigMap = "extension-apiserver-authentication"
	clientCAKey       = "client-ca-file"
)

// New makes the server: consumer reaches the consumer's API server (with
// the agent's identity), locator finds a pod's twin. It checks that the
// consumer publishes its client CA, so that a missing one fails here
// rather than every request.
func New(ctx context.Context, consumer *rest.Config, locator Locator, o Options) (*Server, error) {
	if net.ParseIP(o.Address) == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoAddress, o.Address)
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, ErrHalfCertificate
	}
	cs, err := kubernetes.NewForConfig(consumer)
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of the consumer: %w", err)
	}
	ca, err := dynamiccertificates.NewDynamicCAFromConfigMapController("client-ca", clientCANamespace, clientCAConfigMap, clientCAKey, cs)
	if err != nil {
		return nil, fmt.Errorf("failed to follow the consumer's client CA: %w", err)
	}
	cm, err := cs.CoreV1().ConfigMaps(clientCANamespace).Get(ctx, clientCAConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("failed to read the consumer's client CA (ConfigMap %s/%s): %w", clientCANamespace, clientCAConfigMap, err)
	}
	if cm.Data[clientCAKey] == "" {
		return nil, fmt.Errorf("the consumer's ConfigMap %s/%s has no %s: its API server authenticates no client certificate (--client-ca-file)", clientCANamespace, clientCAConfigMap, clientCAKey)
	}
	backoff := &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                          &apiserver.AnonymousAuthConfig{Enabled: false},
		TokenAccessReviewClient:            cs.AuthenticationV1(),
		TokenAccessReviewTimeout:           10 * time.Second,
		WebhookRetryBackoff:                backoff,
		CacheTTL:                           2 * time.Minute,
		ClientCertificateCAContentProvider: ca,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("failed to set up authentication: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: cs.AuthorizationV1(),
		AllowCacheTTL:             5 * time.Minute,
		DenyCacheTTL:              30 * time.Second,
		WebhookRetryBackoff:       backoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("failed to set up authorization: %w", err)
	}
	s := &Server{locator: locator, authn: authn, authz: authz, caLoaded: func() bool { return len(ca.CurrentCABundleContent()) > 0 }}
	runs := []func(context.Context){func(ctx context.Context) { ca.Run(ctx, 1) }}
	var get func() (*tls.Certificate, error)
	if o.CertFile == "" {
		certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(o.Address, []net.IP{net.ParseIP(o.Address)}, nil)
		if err != nil {
			return nil, fmt.Errorf("failed to make a self-signed serving certificate: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("failed to load the self-signed serving certificate: %w", err)
		}
		get = func() (*tls.Certificate, error) { return &cert, nil }
	} else {
		files, err := dynamiccertificates.NewDynamicServingContentFromFiles("kubelet-serving", o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("failed to read the serving certificate: %w", err)
		}
		runs = append(runs, func(ctx context.Context) { files.Run(ctx, 1) })
		get = reloading(files)
	}
	s.run = func(ctx context.Context) {
		for _, r := range runs {
			go r(ctx)
		}
		<-ctx.Done()
	}
	s.tls = &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The client certificate is verified by the authenticator, against
		// the client CA it follows.
		ClientAuth:     tls.RequestClientCert,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return get() },
	}
	log.FromContext(ctx).Info("Kubelet endpoint of the virtual nodes set up", "address", o.Address, "selfSigned", o.CertFile == "")
	return s, nil
}

// reloading is the current certificate of files, parsed again only when
// it changed.
func reloading(files *dynamiccertificates.DynamicCertKeyPairContent) func() (*tls.Certificate, error) {
	var (
		mu                sync.Mutex
		lastCert, lastKey []byte
		last              *tls.Certificate
	)
	return func() (*tls.Certificate, error) {
		certPEM, keyPEM := files.CurrentCertKeyContent()
		mu.Lock()
		defer mu.Unlock()
		if last != nil && bytes.Equal(certPEM, lastCert) && bytes.Equal(keyPEM, lastKey) {
			return last, nil
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("failed to load the serving certificate: %w", err)
		}
		lastCert, lastKey, last = certPEM, keyPEM, &cert
		return last, nil
	}
}
