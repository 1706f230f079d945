package testenv

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// prometheusReadyTimeout bounds how long a Prometheus server may take to
// open its storage and become ready.
const prometheusReadyTimeout = 30 * time.Second

// StartPrometheus starts a real Prometheus server on a free loopback port
// that scrapes each of scrapeTargets every second, waits until it is
// ready, and returns its base URL ("http://127.0.0.1:PORT"). A target is a
// URL such as an httptest.Server's; its path is the metrics path, /metrics
// when empty. The server is killed and its storage removed when t ends.
//
// The binary is the one MERIDIAN_PROMETHEUS names, else prometheus on
// PATH; `make prometheus` installs it, and t fails without one. Unlike
// Start it runs under -short as well: the server starts in about a second.
func StartPrometheus(t testing.TB, scrapeTargets ...string) string {
	t.Helper()
	bin, err := prometheusBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	cfg, err := prometheusConfig(scrapeTargets)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatalf("failed to write Prometheus configuration: %v", err)
	}
	// The free port is found by closing a listener, so another process may
	// take it before Prometheus does; try a few ports before giving up.
	const attempts = 3
	for attempt := 1; ; attempt++ {
		addr, err := freeLoopbackAddr()
		if err != nil {
			t.Fatal(err)
		}
		logs, err := startPrometheus(t, bin, config, filepath.Join(dir, "data-"+strconv.Itoa(attempt)), addr)
		if err == nil {
			return "http://" + addr
		}
		if attempt < attempts && strings.Contains(logs, "address already in use") {
			continue
		}
		t.Fatalf("%v; its output:\n%s", err, logs)
	}
}

// prometheusBinary returns the Prometheus server binary the tests run.
func prometheusBinary() (string, error) {
	if bin := os.Getenv("MERIDIAN_PROMETHEUS"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("MERIDIAN_PROMETHEUS names no prometheus binary: run 'make prometheus': %w", err)
		}
		return bin, nil
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		return "", fmt.Errorf("no prometheus binary in MERIDIAN_PROMETHEUS or on PATH: run 'make prometheus': %w", err)
	}
	return bin, nil
}

// prometheusConfig returns a configuration that scrapes each target every
// second, one job per target.
func prometheusConfig(targets []string) (string, error) {
	var b strings.Builder
	b.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n")
	for i, target := range targets {
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("scrape target %q is not an http or https URL such as an httptest.Server's", target)
		}
		path := u.Path
		if path == "" {
			path = "/metrics"
		}
		fmt.Fprintf(&b, "  - job_name: %q\n    scheme: %q\n    metrics_path: %q\n    static_configs:\n      - targets: [%q]\n",
			"target-"+strconv.Itoa(i), u.Scheme, path, u.Host)
	}
	return b.String(), nil
}

// freeLoopbackAddr returns an address on 127.0.0.1 that was free a moment
// ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("failed to find a free port on loopback: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("failed to free port %s: %w", addr, err)
	}
	return addr, nil
}

// startPrometheus runs the server on addr and waits until it is ready. On
// failure it returns the server's output with the error; either way t's
// cleanup kills the server and waits for it.
func startPrometheus(t testing.TB, bin, config, storage, addr string) (string, error) {
	logPath := storage + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", fmt.Errorf("failed to create Prometheus log: %w", err)
	}
	defer logFile.Close()
	readLogs := func() string {
		out, _ := os.ReadFile(logPath)
		return string(out)
	}

	cmd := exec.Command(bin,
		"--config.file="+config,
		"--storage.tsdb.path="+storage,
		"--web.listen-address="+addr,
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("failed to start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("Prometheus on %s logged:\n%s", addr, readLogs())
		}
	})

	ready := "http://" + addr + "/-/ready"
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(prometheusReadyTimeout); time.Now().Before(deadline); {
		select {
		case <-exited:
			return readLogs(), fmt.Errorf("prometheus on %s exited before it was ready: %s", addr, cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := client.Get(ready)
		if err != nil {
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return "", nil
		}
	}
	return readLogs(), errors.New("prometheus on " + addr + " was not ready within " + prometheusReadyTimeout.String())
}
