package testbed

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

func TestNodes(t *testing.T) {
	c := &ClusterProfile{
		Name: "cluster1", Region: "rennes", Zone: "rennes-1",
		Nodes: []NodePool{
			{Count: 2, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")},
			{Count: 1, CPU: resource.MustParse("500m"), Memory: resource.MustParse("1Gi"), Pods: 20},
		},
	}
	type node struct {
		Name, Region, Zone, InstanceType, CPU, Memory, Pods, IP string
		Allocatable                                             bool
	}
	var got []node
	for _, n := range nodes("tb", 3, c) {
		if n.Labels[LabelTestbed] != "tb" || n.Labels[LabelCluster] != "cluster1" || n.Labels[corev1.LabelHostname] != n.Name {
			t.Errorf("node %s labels = %v", n.Name, n.Labels)
		}
		capacity := n.Status.Capacity
		got = append(got, node{
			Name:         n.Name,
			Region:       n.Labels[corev1.LabelTopologyRegion],
			Zone:         n.Labels[corev1.LabelTopologyZone],
			InstanceType: n.Labels[corev1.LabelInstanceTypeStable],
			CPU:          capacity.Cpu().String(),
			Memory:       capacity.Memory().String(),
			Pods:         capacity.Pods().String(),
			IP:           n.Status.Addresses[0].Address,
			Allocatable:  cmp.Equal(n.Status.Allocatable, capacity),
		})
	}
	want := []node{
		{"cluster1-node-1", "rennes", "rennes-1", "kwok-4cpu-16gi", "4", "16Gi", "110", "172.16.3.1", true},
		{"cluster1-node-2", "rennes", "rennes-1", "kwok-4cpu-16gi", "4", "16Gi", "110", "172.16.3.2", true},
		{"cluster1-node-3", "rennes", "rennes-1", "kwok-500mcpu-1gi", "500m", "1Gi", "20", "172.16.3.3", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}

func TestClusterObject(t *testing.T) {
	p, err := LoadProfile("seed001")
	if err != nil {
		t.Fatal(err)
	}
	got := clusterObject("tb", p, &p.Clusters[2]) // cluster3, Lille
	want := multiclusterv1alpha1.ClusterSpec{
		KubeconfigSecretRef: multiclusterv1alpha1.SecretReference{Name: "cluster3-kubeconfig", Namespace: "meridian-system", Key: "kubeconfig"},
		Region:              "lille",
		Zone:                "lille-1",
		Provider:            "Testbed",
		GridZone:            "FR",
		Coordinates:         &multiclusterv1alpha1.Coordinates{Latitude: resource.MustParse("50.6292"), Longitude: resource.MustParse("3.0573")},
		// Table II's Lille row, nearest first.
		Latencies: []multiclusterv1alpha1.ClusterLatency{
			{Cluster: "cluster5", RTT: ms(11.88)},
			{Cluster: "cluster4", RTT: ms(12.06)},
			{Cluster: "cluster2", RTT: ms(22.21)},
			{Cluster: "cluster1", RTT: ms(23.26)},
		},
	}
	if diff := cmp.Diff(want, got.Spec); diff != "" {
		t.Errorf("Cluster spec (-want +got):\n%s", diff)
	}
	if got.Name != "cluster3" || got.Labels[LabelTestbed] != "tb" {
		t.Errorf("Cluster name %q labels %v", got.Name, got.Labels)
	}
	// The API declares rtt as a duration string: "11.88ms", not nanoseconds.
	data, err := yaml.Marshal(got.Spec.Latencies[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("cluster: cluster5\nrtt: 11.88ms\n", string(data)); diff != "" {
		t.Errorf("latency YAML (-want +got):\n%s", diff)
	}
}

func ms(v float64) metav1.Duration { return metav1.Duration{Duration: msToDuration(v)} }

func TestBuildKubeconfig(t *testing.T) {
	a := &credentials{Server: "https://127.0.0.1:1", CA: []byte("ca-a"), Cert: []byte("cert-a"), Key: []byte("key-a")}
	b := &credentials{Server: "https://127.0.0.1:2", CA: []byte("ca-b"), Cert: []byte("cert-b"), Key: []byte("key-b")}
	data, err := buildKubeconfig(kubeconfigContext{Name: "tb-management", credentials: a}, kubeconfigContext{Name: "tb-member-1", credentials: b})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	type ctx struct{ Server, CA, Cert, Key string }
	got := map[string]ctx{}
	for name, c := range cfg.Contexts {
		cl, user := cfg.Clusters[c.Cluster], cfg.AuthInfos[c.AuthInfo]
		got[name] = ctx{cl.Server, string(cl.CertificateAuthorityData), string(user.ClientCertificateData), string(user.ClientKeyData)}
	}
	want := map[string]ctx{
		"tb-management": {"https://127.0.0.1:1", "ca-a", "cert-a", "key-a"},
		"tb-member-1":   {"https://127.0.0.1:2", "ca-b", "cert-b", "key-b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contexts (-want +got):\n%s", diff)
	}
	if cfg.CurrentContext != "tb-management" {
		t.Errorf("current context = %q, want tb-management", cfg.CurrentContext)
	}
}

func TestKwokctlConfiguration(t *testing.T) {
	l := layout{dir: "/state/tb"}
	ports := Ports{KubeAPIServer: 20001, Etcd: 20002, EtcdPeer: 20003, KubeControllerManager: 20004, KubeScheduler: 20005, KwokController: 20006}
	// Every binary absolute, every port explicit (etcdPeerPort has no
	// kwokctl flag), everything on 127.0.0.1, the cache in the testbed.
	common := []string{
		"kind: KwokctlConfiguration",
		"runtime: binary",
		"bindAddress: 127.0.0.1",
		"cacheDir: /state/tb/kwok/cache",
		"etcdBinary: /bin/k8s/etcd",
		"kubeApiserverBinary: /bin/k8s/kube-apiserver",
		"kubeControllerManagerBinary: /bin/k8s/kube-controller-manager",
		"kubeSchedulerBinary: /bin/k8s/kube-scheduler",
		"kwokControllerBinary: /bin/k8s/kwok",
		"kubeApiserverPort: 20001",
		"etcdPort: 20002",
		"etcdPeerPort: 20003",
		"kubeControllerManagerPort: 20004",
		"kubeSchedulerPort: 20005",
		"kwokControllerPort: 20006",
		"kubeVersion: v1.36.3",
		"name: kwok-controller",
		"- key: cidr",
		"name: kube-controller-manager",
		"- key: kube-api-qps\n    value: \"200\"",
		"- key: kube-api-burst\n    value: \"300\"",
	}
	// A member runs metrics-server, scraping every 10s the kubelets kwok
	// emulates at their ExternalIP, behind an API server that names the
	// proxy's CA.
	metrics := []string{
		"- metrics-server",
		"metricsServerBinary: /bin/k8s/metrics-server",
		"metricsServerPort: 20007",
		"name: metrics-server",
		"- key: metric-resolution\n    override: true\n    value: 10s",
		"- key: kubelet-preferred-address-types\n    override: true\n    value: ExternalIP",
		"- key: kubelet-request-timeout\n    value: 5s",
		"name: kube-apiserver",
		"- key: requestheader-client-ca-file\n    value: /state/tb/kwok/clusters/member-2/pki/ca.crt",
		"- key: requestheader-allowed-names\n    value: kwok-admin",
	}
	tests := []struct {
		name       string
		cluster    clusterState
		want       []string
		wantAbsent []string
	}{
		{
			name:       "member",
			cluster:    clusterState{Name: "member-2", Index: 2, Role: RoleMember, Ports: withMetricsServer(ports, 20007)},
			want:       append(append(slices.Clone(common), metrics...), "value: 10.2.0.1/16"), // pod IPs distinct across clusters
			wantAbsent: []string{"kubectlBinary"},
		},
		{
			name: "member with its own scheduler",
			cluster: clusterState{Name: "member-2", Index: 2, Role: RoleMember, Ports: withMetricsServer(ports, 20007),
				SchedulerConfig: "kind: KubeSchedulerConfiguration", SchedulerBinary: "/opt/kube-scheduler-meridian"},
			want:       []string{"kubeSchedulerBinary: /opt/kube-scheduler-meridian", "kubeSchedulerConfig: /state/tb/kwokctl/member-2-scheduler.yaml"},
			wantAbsent: []string{"kubeSchedulerBinary: /bin/k8s/kube-scheduler"},
		},
		{
			name:       "member with upstream's controller-manager limits",
			cluster:    clusterState{Name: "member-2", Index: 2, Role: RoleMember, Ports: withMetricsServer(ports, 20007), KubeAPIQPS: 20, KubeAPIBurst: 30},
			want:       []string{"- key: kube-api-qps\n    value: \"20\"", "- key: kube-api-burst\n    value: \"30\""},
			wantAbsent: []string{"value: \"200\""},
		},
		{
			name:       "management",
			cluster:    clusterState{Name: "management", Index: 0, Role: RoleManagement, Ports: ports},
			want:       append(slices.Clone(common), "value: 10.0.0.1/16"),
			wantAbsent: []string{"kubectlBinary", "metrics-server", "metricsServer", "requestheader"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := yaml.Marshal(newKwokctlConfiguration(l, "/bin/k8s", "/usr/bin/kubectl", "v1.36.3", &tc.cluster))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range tc.want {
				if !strings.Contains(string(data), line+"\n") {
					t.Errorf("configuration lacks %q:\n%s", line, data)
				}
			}
			// kubectlBinary: kubectl outside the bin folder is found on PATH.
			for _, s := range tc.wantAbsent {
				if strings.Contains(string(data), s) {
					t.Errorf("configuration holds %q:\n%s", s, data)
				}
			}
		})
	}
}

func withMetricsServer(p Ports, port int) Ports {
	p.MetricsServer = port
	return p
}

func TestKwokctlEnv(t *testing.T) {
	t.Setenv("KWOK_RUNTIME", "docker")
	t.Setenv("KWOK_WORKDIR", "/somewhere/else")
	t.Setenv("KUBECACHEDIR", "/home/me/.kube/cache")
	t.Setenv("PATH", "/usr/bin")
	env := kwokctlEnv(layout{dir: "/state/tb"}, "/opt/kube/kubectl")
	var kwok []string
	path := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "KWOK_") || strings.HasPrefix(kv, "KUBECACHEDIR=") {
			kwok = append(kwok, kv)
		}
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	want := []string{"KWOK_WORKDIR=/state/tb/kwok", "KUBECACHEDIR=/state/tb/kwok/kube-cache"}
	if diff := cmp.Diff(want, kwok); diff != "" {
		t.Errorf("kwokctl's state variables (-want +got):\n%s", diff)
	}
	if path != "/opt/kube:/usr/bin" {
		t.Errorf("PATH = %q, want kubectl's folder first", path)
	}
}

func TestTailFile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 70<<10)
	tests := []struct {
		name    string
		content string
		n       int
		want    []string
	}{
		{name: "empty", content: "", n: 3, want: nil},
		{name: "fewer lines", content: "a\nb\n", n: 3, want: []string{"a", "b"}},
		{name: "last lines", content: "a\nb\nc\nd", n: 2, want: []string{"c", "d"}},
		{name: "cut first line of the window", content: long + "\nlast\n", n: 5, want: []string{"last"}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("f", i+1))
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := tailFile(path, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tailFile (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllocatePorts(t *testing.T) {
	sets, err := allocatePorts(RoleManagement, RoleMember, RoleMember, RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	if sets[0].MetricsServer != 0 {
		t.Errorf("management cluster given metrics-server port %d; it runs none", sets[0].MetricsServer)
	}
	seen := map[int]bool{}
	for i, p := range sets {
		ports := []int{p.KubeAPIServer, p.Etcd, p.EtcdPeer, p.KubeControllerManager, p.KubeScheduler, p.KwokController}
		if i > 0 {
			ports = append(ports, p.MetricsServer)
		}
		for _, port := range ports {
			if port < portRangeLow || port > portRangeHigh {
				t.Errorf("port %d outside %d-%d", port, portRangeLow, portRangeHigh)
			}
			if seen[port] {
				t.Errorf("port %d given twice", port)
			}
			seen[port] = true
		}
	}
}

func TestDefaultDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct {
		name, xdg, want string
	}{
		{name: "XDG_STATE_HOME", xdg: "/xdg/state", want: "/xdg/state/meridian/testbed/demo"},
		{name: "unset", xdg: "", want: filepath.Join(home, ".local/state/meridian/testbed/demo")},
		{name: "relative is ignored", xdg: "rel", want: filepath.Join(home, ".local/state/meridian/testbed/demo")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", tc.xdg)
			got, err := DefaultDir("demo")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("DefaultDir = %q, want %q", got, tc.want)
			}
		})
	}
}
