package charts_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// chart is the folder of the Meridian chart, from this package's folder.
const chart = "meridian"

// helm runs the helm binary with args and returns its standard output; an
// error carries its standard error.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), testenv.Helm(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// helm keeps its caches and repositories in these; a test must not
	// touch the user's.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// render runs helm template on the chart with args and decodes the
// objects it prints.
func render(t *testing.T, args ...string) ([]*unstructured.Unstructured, error) {
	t.Helper()
	out, err := helm(t, append([]string{"template", "m", chart, "--namespace", "meridian-system"}, args...)...)
	if err != nil {
		return nil, err
	}
	return decode(out)
}

func decode(manifest string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	for {
		var o map[string]any
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, err
		}
		if o != nil {
			objs = append(objs, &unstructured.Unstructured{Object: o})
		}
	}
}

// kinds counts objects by kind.
func kinds(objs []*unstructured.Unstructured) map[string]int {
	n := map[string]int{}
	for _, o := range objs {
		n[o.GetKind()]++
	}
	return n
}

// find returns the object of that kind whose name ends in suffix.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, suffix string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && strings.HasSuffix(o.GetName(), suffix) {
			return o
		}
	}
	t.Fatalf("no %s named *%s among the rendered objects", kind, suffix)
	return nil
}

// args returns the first container's arguments of a Deployment.
func args(t *testing.T, d *unstructured.Unstructured) []string {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		t.Fatalf("Deployment %s has no container", d.GetName())
	}
	a, _, _ := unstructured.NestedStringSlice(cs[0].(map[string]any), "args")
	return a
}

func TestMeridianChartLints(t *testing.T) {
	for _, set := range []string{"", "agent.enabled=true,advisor.enabled=true,metrics.serviceMonitor.enabled=true", "controller.enabled=false,agent.enabled=true"} {
		a := []string{"lint", "--strict", chart}
		if set != "" {
			a = append(a, "--set", set)
		}
		if out, err := helm(t, a...); err != nil {
			t.Errorf("helm lint --set %q: %v\n%s", set, err, out)
		}
	}
}

func TestMeridianChartRendersTheController(t *testing.T) {
	objs, err := render(t)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"ServiceAccount": 1, "ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 2, "Secret": 1, "MutatingWebhookConfiguration": 1}
	if got := kinds(objs); !equalCounts(got, want) {
		t.Errorf("rendered kinds = %v, want %v", got, want)
	}

	d := find(t, objs, "Deployment", "-controller")
	if r, _, _ := unstructured.NestedFieldNoCopy(d.Object, "spec", "replicas"); fmt.Sprint(r) != "2" {
		t.Errorf("controller replicas = %v, want 2", r)
	}
	a := args(t, d)
	for _, w := range []string{"controller", "--leader-elect=true", "--namespace=meridian-system", "--webhook-cert-dir=/var/run/meridian/webhook"} {
		if !slices.Contains(a, w) {
			t.Errorf("controller args %v lack %s", a, w)
		}
	}

	// The webhook configuration points at this release's service, and its
	// CA signed a serving certificate valid for that service's DNS name.
	svc := find(t, objs, "Service", "-webhook")
	hooks, _, _ := unstructured.NestedSlice(find(t, objs, "MutatingWebhookConfiguration", "-mutating").Object, "webhooks")
	if len(hooks) == 0 {
		t.Fatal("the MutatingWebhookConfiguration has no webhook")
	}
	cc := hooks[0].(map[string]any)["clientConfig"].(map[string]any)
	ref := cc["service"].(map[string]any)
	if ref["name"] != svc.GetName() || ref["namespace"] != "meridian-system" {
		t.Errorf("webhook service = %v/%v, want meridian-system/%s", ref["namespace"], ref["name"], svc.GetName())
	}
	secret := find(t, objs, "Secret", "-webhook-cert")
	data, _, _ := unstructured.NestedStringMap(secret.Object, "data")
	if cc["caBundle"] != data["ca.crt"] {
		t.Error("the webhook's caBundle is not the CA of its certificate Secret")
	}
	verifyServing(t, data, svc.GetName()+".meridian-system.svc")
}

// verifyServing checks that the Secret's tls.crt is signed by its ca.crt
// and valid for dnsName.
func verifyServing(t *testing.T, data map[string]string, dnsName string) {
	t.Helper()
	parse := func(key string) *x509.Certificate {
		raw, err := base64.StdEncoding.DecodeString(data[key])
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		block, _ := pem.Decode(raw)
		if block == nil {
			t.Fatalf("%s holds no PEM block", key)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return c
	}
	ca, crt := parse("ca.crt"), parse("tls.crt")
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := crt.Verify(x509.VerifyOptions{DNSName: dnsName, Roots: roots}); err != nil {
		t.Errorf("serving certificate for %s: %v", dnsName, err)
	}
}

func TestMeridianChartOptionalComponents(t *testing.T) {
	cases := []struct {
		name string
		args []string
		// want: Deployments by name suffix and the args each must have.
		want map[string][]string
		// absent: kinds that must not be rendered.
		absent []string
		check  func(t *testing.T, objs []*unstructured.Unstructured)
	}{{
		name: "agent and advisor beside the controller",
		args: []string{"--set", "agent.enabled=true,advisor.enabled=true,metrics.serviceMonitor.enabled=true"},
		want: map[string][]string{"-controller": {"controller"}, "-agent": {"agent", "--namespace=meridian-system", "--leader-elect=false"}, "-advisor": {"advisor", "serve", "--data-dir=/var/lib/meridian/advisor"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			if n := kinds(objs)["ServiceMonitor"]; n != 2 {
				t.Errorf("%d ServiceMonitors, want 2 (controller, agent)", n)
			}
			sa := find(t, objs, "ServiceAccount", "-advisor")
			if mount, ok, _ := unstructured.NestedBool(sa.Object, "automountServiceAccountToken"); !ok || mount {
				t.Error("the advisor's ServiceAccount mounts a token; it needs no Kubernetes API")
			}
		},
	}, {
		name: "broker",
		args: []string{"--set", "broker.enabled=true,broker.brokerID=hub"},
		want: map[string][]string{"-controller": {"controller"}, "-broker": {"broker", "--broker-id=hub", "--namespace=meridian-system", "--leader-elect=false"}},
	}, {
		name: "Grafana dashboards for the sidecar",
		args: []string{"--set", "grafana.dashboards.enabled=true"},
		want: map[string][]string{"-controller": {"controller"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			cm := find(t, objs, "ConfigMap", "-dashboard-meridian")
			if cm.GetLabels()["grafana_dashboard"] != "1" {
				t.Errorf("dashboard ConfigMap labels = %v, want grafana_dashboard=1", cm.GetLabels())
			}
			want, err := os.ReadFile("../config/grafana/meridian.json")
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := unstructured.NestedString(cm.Object, "data", "meridian.json"); got != string(want) {
				t.Error("the dashboard ConfigMap does not hold config/grafana/meridian.json")
			}
		},
	}, {
		name:   "agent alone in a member cluster",
		args:   []string{"--set", "controller.enabled=false,agent.enabled=true,agent.replicas=2"},
		want:   map[string][]string{"-agent": {"agent", "--leader-elect=true", "--kubelet-bind-address=:10250", "--kubelet-address=$(POD_IP)"}},
		absent: []string{"MutatingWebhookConfiguration", "Secret"},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			// The virtual nodes advertise the agent pod's IP, where the API
			// server reaches their kubelet endpoint.
			c := container(t, find(t, objs, "Deployment", "-agent"))
			env, _, _ := unstructured.NestedSlice(c, "env")
			if got := fmt.Sprint(env); !strings.Contains(got, "POD_IP") || !strings.Contains(got, "status.podIP") {
				t.Errorf("agent env = %s, want POD_IP from status.podIP", got)
			}
			ports, _, _ := unstructured.NestedSlice(c, "ports")
			if got := fmt.Sprint(ports); !strings.Contains(got, "kubelet") || !strings.Contains(got, "10250") {
				t.Errorf("agent ports = %s, want kubelet 10250", got)
			}
		},
	}, {
		name: "agent without a kubelet endpoint",
		args: []string{"--set", "controller.enabled=false,agent.enabled=true,agent.kubeletPort=0"},
		want: map[string][]string{"-agent": {"agent"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			args, _, _ := unstructured.NestedStringSlice(container(t, find(t, objs, "Deployment", "-agent")), "args")
			for _, a := range args {
				if strings.HasPrefix(a, "--kubelet-") {
					t.Errorf("agent args hold %s with agent.kubeletPort=0", a)
				}
			}
		},
	}, {
		name:   "one controller replica elects no leader",
		args:   []string{"--set", "controller.replicas=1,webhook.enabled=false"},
		want:   map[string][]string{"-controller": {"controller", "--leader-elect=false"}},
		absent: []string{"MutatingWebhookConfiguration", "Secret"},
	}, {
		name:   "cert-manager issues the webhook's certificate when it is served",
		args:   []string{"--api-versions", "cert-manager.io/v1"},
		want:   map[string][]string{"-controller": {"controller"}},
		absent: []string{"Secret"},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			cert := find(t, objs, "Certificate", "-webhook")
			if s, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName"); s != cert.GetName()+"-cert" {
				t.Errorf("Certificate secretName = %q, want the Secret the controller mounts, %s-cert", s, cert.GetName())
			}
			find(t, objs, "Issuer", "-selfsigned")
			w := find(t, objs, "MutatingWebhookConfiguration", "-mutating")
			if got := w.GetAnnotations()["cert-manager.io/inject-ca-from"]; got != "meridian-system/"+cert.GetName() {
				t.Errorf("inject-ca-from = %q, want meridian-system/%s", got, cert.GetName())
			}
		},
	}, {
		name:   "cert-manager with the cluster's own issuer",
		args:   []string{"--set", "webhook.certManager.enabled=true,webhook.certManager.issuerRef.name=corp,webhook.certManager.issuerRef.kind=ClusterIssuer"},
		want:   map[string][]string{"-controller": {"controller"}},
		absent: []string{"Secret", "Issuer"},
	}, {
		name: "outside services' credentials from a Secret",
		args: []string{"--set", "controller.envFrom[0].secretRef.name=carbon-credentials"},
		want: map[string][]string{"-controller": {"controller"}},
		check: func(t *testing.T, objs []*unstructured.Unstructured) {
			d := find(t, objs, "Deployment", "-controller")
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			from, _, _ := unstructured.NestedSlice(containers[0].(map[string]any), "envFrom")
			if len(from) != 1 || fmt.Sprint(from[0]) != "map[secretRef:map[name:carbon-credentials]]" {
				t.Errorf("controller envFrom = %v, want the Secret carbon-credentials", from)
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := render(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(objs)["Deployment"]; got != len(tc.want) {
				t.Errorf("%d Deployments, want %d", got, len(tc.want))
			}
			for suffix, want := range tc.want {
				a := args(t, find(t, objs, "Deployment", suffix))
				for _, w := range want {
					if !slices.Contains(a, w) {
						t.Errorf("Deployment *%s args %v lack %s", suffix, a, w)
					}
				}
			}
			for _, k := range tc.absent {
				if n := kinds(objs)[k]; n != 0 {
					t.Errorf("%d %s rendered, want none", n, k)
				}
			}
			if tc.check != nil {
				tc.check(t, objs)
			}
		})
	}
}

func TestMeridianChartRefusesBadValues(t *testing.T) {
	cases := map[string]string{
		"controller.replicas=0":                "/controller/replicas",
		"webhook.certManager.enabled=maybe":    "/webhook/certManager/enabled",
		"webhook.failurePolicy=Sometimes":      "/webhook/failurePolicy",
		"controler.replicas=2":                 "controler",
		"image.pullPolicy=Often":               "/image/pullPolicy",
		"metrics.serviceMonitor.interval=30":   "/metrics/serviceMonitor/interval",
		"advisor.port=70000":                   "/advisor/port",
		"webhook.certManager.issuerRef.kind=X": "/webhook/certManager/issuerRef/kind",
		"broker.enabled=true":                  "broker.brokerID",
		"broker.brokerID=Not_A_Label":          "/broker/brokerID",
		// Credentials by Secret reference only.
		"controller.envFrom[0].configMapRef.name=carbon": "/controller/envFrom/0",
	}
	for set, field := range cases {
		_, err := render(t, "--set", set)
		if err == nil {
			t.Errorf("--set %s rendered, want an error naming %s", set, field)
			continue
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("--set %s: error %q does not name %s", set, err, field)
		}
	}
}

// Every component's rights come from its packages' +kubebuilder:rbac
// markers, and none is a wildcard: a marker that asks for "*" verbs,
// resources or groups fails here.
func TestRBACHasNoWildcards(t *testing.T) {
	roles, err := filepath.Glob("../config/rbac/*/role.yaml")
	if err != nil || len(roles) == 0 {
		t.Fatalf("no generated roles in config/rbac/*/role.yaml (%v): run make manifests", err)
	}
	for _, path := range roles {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := decode(string(data))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, o := range objs {
			rules, _, _ := unstructured.NestedSlice(o.Object, "rules")
			if len(rules) == 0 {
				t.Errorf("%s: %s %s has no rules", path, o.GetKind(), o.GetName())
			}
			for i, r := range rules {
				for _, field := range []string{"verbs", "resources", "apiGroups", "nonResourceURLs"} {
					vals, _, _ := unstructured.NestedStringSlice(r.(map[string]any), field)
					for _, v := range vals {
						if strings.Contains(v, "*") {
							t.Errorf("%s: %s rule %d has %s %q: name what the component uses", path, o.GetName(), i, field, v)
						}
					}
				}
			}
		}
		component := filepath.Base(filepath.Dir(path))
		copied, err := os.ReadFile(filepath.Join(chart, "files", "rbac", component+".yaml"))
		if err != nil || !bytes.Equal(copied, data) {
			t.Errorf("the chart's files/rbac/%s.yaml is not %s (%v): run make manifests", component, path, err)
		}
	}
}

// The chart installs the CRDs make manifests generates and ships the
// Grafana dashboards of config/grafana, unchanged.
func TestMeridianChartCopiesAreCurrent(t *testing.T) {
	for source, copies := range map[string]string{"../config/crd/bases/*.yaml": "crds", "../config/grafana/*.json": "files/grafana"} {
		originals, err := filepath.Glob(source)
		if err != nil || len(originals) == 0 {
			t.Fatalf("nothing matches %s (%v)", source, err)
		}
		inChart, _ := filepath.Glob(filepath.Join(chart, copies, "*"))
		if len(inChart) != len(originals) {
			t.Errorf("the chart's %s has %d files, %s matches %d: run make manifests", copies, len(inChart), source, len(originals))
		}
		for _, path := range originals {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(chart, copies, filepath.Base(path)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from %s (%v): run make manifests", copies, filepath.Base(path), path, err)
			}
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// container is the first container of a Deployment.
func container(t *testing.T, d *unstructured.Unstructured) map[string]any {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(cs) == 0 {
		t.Fatalf("Deployment %s has no container", d.GetName())
	}
	c, ok := cs[0].(map[string]any)
	if !ok {
		t.Fatalf("Deployment %s: container is %T", d.GetName(), cs[0])
	}
	return c
}
