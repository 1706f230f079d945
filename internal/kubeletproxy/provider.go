package kubeletproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/streaming/pkg/httpstream"
)

// logs streams a container's log of the twin from the provider.
func logs(ctx context.Context, t Twin, container string, o api.ContainerLogOpts) (io.ReadCloser, error) {
	cs, err := kubernetes.NewForConfig(t.Provider)
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of the provider: %w", err)
	}
	opts := &corev1.PodLogOptions{
		Container:  container,
		Follow:     o.Follow,
		Previous:   o.Previous,
		Timestamps: o.Timestamps,
	}
	if o.Tail > 0 {
		tail := int64(o.Tail)
		opts.TailLines = &tail
	}
	if o.LimitBytes > 0 {
		limit := int64(o.LimitBytes)
		opts.LimitBytes = &limit
	}
	if o.SinceSeconds > 0 {
		since := int64(o.SinceSeconds)
		opts.SinceSeconds = &since
	}
	if !o.SinceTime.IsZero() {
		since := metav1.NewTime(o.SinceTime)
		opts.SinceTime = &since
	}
	return cs.CoreV1().Pods(t.Namespace).GetLogs(t.Name, opts).Stream(ctx)
}

// stream runs exec (a command) or attach (cmd nil) in a container of the
// twin, wiring io to the provider's stream. A command's non-zero exit is
// returned as client-go's exit error, unwrapped, so that the library
// reports the exit code to the caller as kubelet does.
func stream(ctx context.Context, t Twin, container string, cmd []string, io api.AttachIO) error {
	cs, err := kubernetes.NewForConfig(t.Provider)
	if err != nil {
		return fmt.Errorf("failed to create a client of the provider: %w", err)
	}
	req := cs.CoreV1().RESTClient().Post().Namespace(t.Namespace).Resource("pods").Name(t.Name)
	stdin, stdout, stderr := io.Stdin() != nil, io.Stdout() != nil, io.Stderr() != nil && !io.TTY()
	if cmd != nil {
		req = req.SubResource("exec").VersionedParams(&corev1.PodExecOptions{
			Container: container, Command: cmd, Stdin: stdin, Stdout: stdout, Stderr: stderr, TTY: io.TTY(),
		}, scheme.ParameterCodec)
	} else {
		req = req.SubResource("attach").VersionedParams(&corev1.PodAttachOptions{
			Container: container, Stdin: stdin, Stdout: stdout, Stderr: stderr, TTY: io.TTY(),
		}, scheme.ParameterCodec)
	}
	exec, err := executor(t.Provider, req)
	if err != nil {
		return err
	}
	so := remotecommand.StreamOptions{Tty: io.TTY()}
	if stdin {
		so.Stdin = io.Stdin()
	}
	if stdout {
		so.Stdout = io.Stdout()
	}
	if stderr {
		so.Stderr = io.Stderr()
	}
	if io.TTY() && io.Resize() != nil {
		so.TerminalSizeQueue = &sizes{ctx: ctx, c: io.Resize()}
	}
	return exec.StreamWithContext(ctx, so)
}

// executor speaks WebSocket to the provider, and SPDY to one that does not
// upgrade to it, as kubectl does.
func executor(cfg *rest.Config, req *rest.Request) (remotecommand.Executor, error) {
	spdyExec, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, req.URL())
	if err != nil {
		return nil, fmt.Errorf("failed to create the SPDY executor: %w", err)
	}
	wsExec, err := remotecommand.NewWebSocketExecutor(cfg, http.MethodGet, req.URL().String())
	if err != nil {
		return nil, fmt.Errorf("failed to create the WebSocket executor: %w", err)
	}
	return remotecommand.NewFallbackExecutor(wsExec, spdyExec, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

// sizes is the caller's terminal resizes as client-go reads them.
type sizes struct {
	ctx context.Context
	c   <-chan api.TermSize
}

// Next returns the next size, nil once the stream ends.
func (s *sizes) Next() *remotecommand.TerminalSize {
	select {
	case sz, ok := <-s.c:
		if !ok {
			return nil
		}
		return &remotecommand.TerminalSize{Width: sz.Width, Height: sz.Height}
	case <-s.ctx.Done():
		return nil
	}
}

// forward carries one forwarded connection (conn, which the library
// opened for port) to port of the twin, through the provider's
// pods/portforward, one SPDY connection per forwarded connection.
func forward(ctx context.Context, t Twin, port int32, conn io.ReadWriteCloser) error {
	defer func() { _ = conn.Close() }()
	cs, err := kubernetes.NewForConfig(t.Provider)
	if err != nil {
		return fmt.Errorf("failed to create a client of the provider: %w", err)
	}
	u := cs.CoreV1().RESTClient().Post().Namespace(t.Namespace).Resource("pods").Name(t.Name).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(t.Provider)
	if err != nil {
		return fmt.Errorf("failed to create the SPDY transport: %w", err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	remote, protocol, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return fmt.Errorf("failed to reach port %d of pod %s/%s in the provider: %w", port, t.Namespace, t.Name, err)
	}
	defer func() { _ = remote.Close() }()
	if protocol != portforward.PortForwardProtocolV1Name {
		return fmt.Errorf("the provider answered port forwarding in protocol %q, want %q", protocol, portforward.PortForwardProtocolV1Name)
	}
	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	headers.Set(corev1.PortForwardRequestIDHeader, "0")
	errStream, err := remote.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("failed to open the error stream of port %d: %w", port, err)
	}
	_ = errStream.Close() // nothing is written to it
	remoteErr := make(chan error, 1)
	go func() {
		msg, err := io.ReadAll(errStream)
		switch {
		case err != nil:
			remoteErr <- fmt.Errorf("failed to read the provider's error stream: %w", err)
		case len(msg) > 0:
			remoteErr <- fmt.Errorf("the provider failed to forward port %d: %s", port, msg)
		default:
			remoteErr <- nil
		}
	}()
	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := remote.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("failed to open the data stream of port %d: %w", port, err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(conn, data)
		done <- err
	}()
	go func() {
		_, err := io.Copy(data, conn)
		_ = data.Close() // the provider learns the caller sends no more
		done <- err
	}()
	select {
	case err = <-done:
	case err = <-remoteErr:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
