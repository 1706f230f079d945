package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestBrokerRefusesBadFlags: the broker and its subcommands name the flag
// that is wrong before they connect to anything.
func TestBrokerRefusesBadFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no broker id", []string{"broker"}, "broker-id"},
		{"broker id not a DNS label", []string{"broker", "--broker-id=Broker_1"}, `broker-id "Broker_1"`},
		{"negative confirm timeout", []string{"broker", "--broker-id=b", "--confirm-timeout=-1s"}, "confirm-timeout -1s"},
		{"onboard without a cluster id", []string{"broker", "onboard", "--kubeconfig=/dev/null"}, "cluster-id"},
		{"query without requests", []string{"broker", "query"}, "cpu or memory"},
		{"query with a bad cpu", []string{"broker", "query", "--cpu=two"}, `cpu "two"`},
		{"query with a negative memory", []string{"broker", "query", "--memory=-1Gi"}, `memory "-1Gi"`},
		{"query with a bad price", []string{"broker", "query", "--cpu=1", "--max-price=cheap"}, `max-price "cheap"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := NewRootCommand()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tc.args)
			err := root.ExecuteContext(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// TestBrokerCommands runs the broker's commands against a real API server:
// onboard two members, register them with the kubeconfigs onboard printed,
// run meridian broker, publish an advertisement as the provider's service
// account and query it as the consumer's.
func TestBrokerCommands(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	dir := t.TempDir()
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(admin, env.Management.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		root := NewRootCommand()
		var out, errOut bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errOut)
		root.SetArgs(args)
		err := root.ExecuteContext(t.Context())
		return out.String() + errOut.String(), err
	}
	kc := map[string]string{}
	for _, id := range []string{"prov", "cons"} {
		out, err := run("broker", "onboard", "--kubeconfig", admin, "--cluster-id", id)
		if err != nil {
			t.Fatalf("onboard %s: %v", id, err)
		}
		kc[id] = filepath.Join(dir, id+".kubeconfig")
		if err := os.WriteFile(kc[id], []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run("broker", "register", "--kubeconfig", kc["prov"], "--cluster-id", "prov", "--role", "Provider", "--region", "eu-west", "--api-server", "https://prov.example", "--credentials", admin); err != nil {
		t.Fatalf("register prov: %v: %s", err, out)
	}
	if out, err := run("broker", "register", "--kubeconfig", kc["cons"], "--cluster-id", "cons", "--role", "Consumer", "--api-server", "https://cons.example"); err != nil {
		t.Fatalf("register cons: %v: %s", err, out)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		root := NewRootCommand()
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		root.SetArgs([]string{"broker", "--kubeconfig", admin, "--broker-id", "broker", "--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=0"})
		done <- root.ExecuteContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("meridian broker stopped with error: %v", err)
		}
	})

	cfg, err := clientcmd.RESTConfigFromKubeConfig(mustRead(t, kc["prov"]))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	adv := &sharingv1alpha1.Advertisement{ObjectMeta: metav1.ObjectMeta{Name: "prov", Namespace: "member-prov"}, Spec: sharingv1alpha1.AdvertisementSpec{
		ClusterID: "prov", Consumer: "broker", Type: sharingv1alpha1.AdvertisementFull, Timestamp: metav1.Now(), TimeToLive: metav1.Duration{Duration: time.Hour},
		Availability: []sharingv1alpha1.NodeShape{{Name: "4cpu-8gi", Count: 2, Resources: map[corev1.ResourceName]resource.Quantity{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi")}}},
		Prices:       []sharingv1alpha1.Price{{Resource: "cpu", Amount: resource.MustParse("0.5"), Currency: "EUR", Unit: resource.MustParse("1"), Period: sharingv1alpha1.PeriodHour}},
	}}
	if err := prov.Create(t.Context(), adv); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 60*time.Second, "the advertisement listed", func() string {
		if err := prov.Get(t.Context(), client.ObjectKeyFromObject(adv), adv); err != nil {
			return err.Error()
		}
		return cmp.Diff("Accepted/Listed", string(adv.Status.Decision)+"/"+string(adv.Status.Reason))
	})

	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"a match", []string{"--cpu", "1", "--memory", "1Gi", "--max-price", "0.5"}, []string{"Matched: 1 shapes", "prov eu-west 4cpu-8gi 2 4 0.500 EUR"}},
		{"no match in another region", []string{"--cpu", "1", "--region", "us-east"}, []string{"NoMatch: none of 1 listed advertisements"}},
		{"no match above the price", []string{"--cpu", "2", "--max-price", "0.99"}, []string{"NoMatch"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(append([]string{"broker", "query", "--kubeconfig", kc["cons"]}, tc.args...)...)
			if err != nil {
				t.Fatalf("query: %v: %s", err, out)
			}
			words := strings.Join(strings.Fields(out), " ")
			for _, w := range tc.want {
				if !strings.Contains(words, w) {
					t.Errorf("query printed\n%s\nwant it to contain %q", out, w)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
