package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	utilexec "k8s.io/client-go/util/exec"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/testbed"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// kubeletOfOffloaded: what kubectl logs, exec and port-forward do with the
// pod web that home offloaded to big, from home's API server, goes through
// home's agent (the virtual node's kubelet endpoint) to the twin in big,
// whose kwok answers as a kubelet would (testbed.ContainerLogFile): the
// same log as big's API server gives for the twin, a followed log that
// shows a line appended later and ends when the agent is killed (served
// again once it is back, the twin still one), a command's output and
// error output over SPDY and WebSocket and its failure, and a forwarded
// port's echo.
func kubeletOfOffloaded(t *testing.T, w *sharingWorld) {
	ctx := t.Context()
	home := kubernetes.NewForConfigOrDie(w.homeConfig)
	big := kubernetes.NewForConfigOrDie(w.bigConfig)
	opts := &corev1.PodLogOptions{Container: "web"}

	t.Run("logs", func(t *testing.T) {
		want, err := big.CoreV1().Pods(w.twinNS).GetLogs("web", opts).DoRaw(ctx)
		if err != nil {
			t.Fatalf("big's own log of the twin: %v", err)
		}
		if !strings.Contains(string(want), "testbed cluster big") {
			t.Fatalf("big's log of the twin is %q, want the testbed's line of big", want)
		}
		got, err := home.CoreV1().Pods(w.homeNS).GetLogs("web", opts).DoRaw(ctx)
		if err != nil {
			t.Fatalf("kubectl logs web in home: %v", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("log of web from home, against big's of its twin (-big +home):\n%s", diff)
		}
	})

	t.Run("logs -f", func(t *testing.T) {
		follow, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		stream, err := home.CoreV1().Pods(w.homeNS).GetLogs("web", &corev1.PodLogOptions{Container: "web", Follow: true}).Stream(follow)
		if err != nil {
			t.Fatalf("kubectl logs -f web in home: %v", err)
		}
		defer func() { _ = stream.Close() }()
		line := fmt.Sprintf("appended at %s", time.Now().Format(time.RFC3339Nano))
		f, err := os.OpenFile(testbed.ContainerLog(w.dir, "big"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprint(f, testbed.ContainerLogLine(time.Now(), line))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stream)
		for sc.Scan() {
			if sc.Text() == line {
				return
			}
		}
		t.Errorf("the followed log of web ended (%v) without the line appended in big: %q", sc.Err(), line)
	})

	t.Run("agent killed while following a log", func(t *testing.T) {
		// The followed stream ends when the agent serving it dies (the
		// client is not left hanging), the twin stays one, and once the
		// agent is back (on a new port, which the virtual node
		// advertises anew) the log is served again.
		follow, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		stream, err := home.CoreV1().Pods(w.homeNS).GetLogs("web", &corev1.PodLogOptions{Container: "web", Follow: true}).Stream(follow)
		if err != nil {
			t.Fatalf("kubectl logs -f web in home: %v", err)
		}
		defer func() { _ = stream.Close() }()
		ended := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, stream)
			ended <- err
		}()
		if err := testbed.KillAgent(ctx, w.dir, "home"); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-ended:
			t.Logf("the followed log ended with the agent: %v", err)
		case <-follow.Done():
			t.Fatal("the followed log of web did not end within two minutes of its agent's death")
		}
		if err := testbed.StartAgent(w.dir, "home"); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, time.Minute, "web's log served again from home", func() string {
			if _, err := home.CoreV1().Pods(w.homeNS).GetLogs("web", opts).DoRaw(ctx); err != nil {
				return err.Error()
			}
			return ""
		})
		var twins corev1.PodList
		if err := w.big.List(ctx, &twins, client.InNamespace(w.twinNS)); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tw := range twins.Items {
			if tw.Name == "web" {
				n++
			}
		}
		if diff := cmp.Diff(1, n); diff != "" {
			t.Errorf("twins of web in big after the agent's restart (-want +got):\n%s", diff)
		}
	})

	t.Run("exec", func(t *testing.T) {
		cmd := []string{"sh", "-c", "echo offloaded; echo to-stderr >&2"}
		want := execIn(t, w.bigConfig, w.twinNS, "web", cmd, spdyExecutor)
		if want != "stdout=offloaded\n stderr=to-stderr\n exit=0" {
			t.Fatalf("exec in the twin through big's API server: %s", want)
		}
		for name, ex := range map[string]executorOf{"SPDY": spdyExecutor, "WebSocket": webSocketExecutor} {
			if diff := cmp.Diff(want, execIn(t, w.homeConfig, w.homeNS, "web", cmd, ex)); diff != "" {
				t.Errorf("kubectl exec web in home over %s, against big's (-big +home):\n%s", name, diff)
			}
		}
		// A command that fails: kwok reports it as an error of the exec
		// (not as an exit code, as a kubelet would), which home relays.
		failing := []string{"sh", "-c", "echo before-failing; exit 3"}
		got := execIn(t, w.homeConfig, w.homeNS, "web", failing, webSocketExecutor)
		if !strings.Contains(got, "stdout \"before-failing\\n\"") || !strings.Contains(got, "exit status 3") {
			t.Errorf("kubectl exec web -- %q in home: %s, want its output and big's report of exit status 3", failing, got)
		}
	})

	t.Run("port-forward", func(t *testing.T) {
		u := home.CoreV1().RESTClient().Post().Namespace(w.homeNS).Resource("pods").Name("web").SubResource("portforward").URL()
		transport, upgrader, err := spdy.RoundTripperFor(w.homeConfig)
		if err != nil {
			t.Fatal(err)
		}
		dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
		ready := make(chan struct{})
		pfCtx, stop := context.WithCancel(ctx)
		defer stop()
		var out bytes.Buffer
		pf, err := portforward.NewOnAddressesWithContext(pfCtx, dialer, []string{"127.0.0.1"}, []string{"0:8080"}, ready, &out, &out)
		if err != nil {
			t.Fatal(err)
		}
		forwarded := make(chan error, 1)
		go func() { forwarded <- pf.ForwardPorts() }()
		select {
		case <-ready:
		case err := <-forwarded:
			t.Fatalf("kubectl port-forward web 8080 in home: %v", err)
		case <-time.After(time.Minute):
			t.Fatal("kubectl port-forward web 8080 in home: not ready after a minute")
		}
		ports, err := pf.GetPorts()
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", ports[0].Local), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(conn, "ping through home's agent\n"); err != nil {
			t.Fatal(err)
		}
		echo, err := bufio.NewReader(conn).ReadString('\n')
		if diff := cmp.Diff("ping through home's agent\n", echo); diff != "" {
			t.Errorf("echo of port 8080 of web through home (-want +got):\n%s\nread error: %v, port-forward said: %s", diff, err, out.String())
		}
	})
}

// executorOf makes the executor of an exec request, as kubectl does over
// one protocol.
type executorOf func(cfg *rest.Config, req *rest.Request) (remotecommand.Executor, error)

func spdyExecutor(cfg *rest.Config, req *rest.Request) (remotecommand.Executor, error) {
	return remotecommand.NewSPDYExecutor(cfg, http.MethodPost, req.URL())
}

func webSocketExecutor(cfg *rest.Config, req *rest.Request) (remotecommand.Executor, error) {
	return remotecommand.NewWebSocketExecutor(cfg, http.MethodGet, req.URL().String())
}

// execIn runs cmd in container web of pod namespace/name through the API
// server cfg reaches, and says what came out: "stdout=… stderr=… exit=N".
func execIn(t *testing.T, cfg *rest.Config, namespace, name string, cmd []string, executor executorOf) string {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	req := cs.CoreV1().RESTClient().Post().Namespace(namespace).Resource("pods").Name(name).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "web", Command: cmd, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := executor(cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
	code := 0
	var exit utilexec.CodeExitError
	switch {
	case errors.As(err, &exit):
		code = exit.Code
	case err != nil:
		return fmt.Sprintf("exec failed: %v (stdout %q, stderr %q)", err, stdout.String(), stderr.String())
	}
	return fmt.Sprintf("stdout=%s stderr=%s exit=%d", stdout.String(), stderr.String(), code)
}
