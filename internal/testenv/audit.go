package testenv

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// auditPolicy records every request's metadata once it is answered.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
`

// AuditLog is the audit log of an API server StartAuditedCluster started.
type AuditLog struct{ path string }

// AuditEvent is one answered request.
type AuditEvent struct {
	User                         string
	Verb                         string
	Group, Resource, Subresource string
	Namespace, Name              string
	// Code is the HTTP status of the answer: 403 when authorization
	// refused it, 201 when it created an object (a server-side apply
	// included).
	Code int
}

// StartAuditedCluster starts one more API server with no CRDs, like
// StartCluster, that writes every request it answers into an audit log
// (kube-apiserver's --audit-log-path), so that a test sees exactly what a
// component asked of it and with which answer. featureGates, when not
// empty, is its --feature-gates.
func StartAuditedCluster(t testing.TB, name, featureGates string) (*Cluster, *AuditLog) {
	t.Helper()
	assets := prologue(t)
	dir := t.TempDir()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &AuditLog{path: filepath.Join(dir, "audit.log")}
	env := &envtest.Environment{BinaryAssetsDirectory: assets}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", log.path)
	args.Set("audit-log-mode", "blocking")
	if featureGates != "" {
		args.Set("feature-gates", featureGates)
	}
	c, err := startOne(name, env)
	if err != nil {
		t.Fatalf("failed to start API server of %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("failed to stop API server of %s: %v", c.Name, err)
		}
	})
	return c, log
}

// Events returns the requests answered so far.
func (a *AuditLog) Events(t testing.TB) []AuditEvent {
	t.Helper()
	f, err := os.Open(a.path)
	if err != nil {
		t.Fatalf("failed to open the audit log: %v", err)
	}
	defer f.Close()
	var out []AuditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Verb string `json:"verb"`
			User struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				Resource, Namespace, Name, APIGroup, Subresource string
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("failed to read the audit log: %v", err)
		}
		ev := AuditEvent{User: e.User.Username, Verb: e.Verb}
		if r := e.ObjectRef; r != nil {
			ev.Group, ev.Resource, ev.Subresource, ev.Namespace, ev.Name = r.APIGroup, r.Resource, r.Subresource, r.Namespace, r.Name
		}
		if e.ResponseStatus != nil {
			ev.Code = e.ResponseStatus.Code
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("failed to read the audit log: %v", err)
	}
	return out
}

// String names the request as RBAC sees it.
func (e AuditEvent) String() string {
	res := e.Resource
	if e.Subresource != "" {
		res += "/" + e.Subresource
	}
	if e.Group != "" {
		res += "." + e.Group
	}
	return fmt.Sprintf("%s %s %s/%s (%d)", e.Verb, res, e.Namespace, e.Name, e.Code)
}
