package probe

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
)

// Names and keys of the prober's ConfigMaps.
const (
	// ProbeConfigMap is written by the prober.
	ProbeConfigMap = "meridian-probe"
	// TargetsConfigMap is written by the controller.
	TargetsConfigMap = "meridian-probe-targets"
	// AddressKey holds the prober's advertised address (host:port).
	AddressKey = "address"
	// LatenciesKey holds the measured round trips (JSON, []Measurement).
	LatenciesKey = "latencies"
	// TargetsKey holds the other members' addresses by Cluster name (JSON).
	TargetsKey = "targets"
	// FieldManager is the prober's server-side apply field manager.
	FieldManager = "meridian-probe"
	// ManagedBy is the value of app.kubernetes.io/managed-by on both
	// ConfigMaps.
	ManagedBy = "meridian-probe"
)

// Measurement is one round-trip time to another member.
type Measurement struct {
	Cluster    string        `json:"cluster"`
	RTT        time.Duration `json:"rttNanoseconds"`
	MeasuredAt time.Time     `json:"measuredAt"`
}

// Report is what a prober's ConfigMap says.
type Report struct {
	Address   string
	Latencies []Measurement
}

// ReadReport decodes a prober's ConfigMap, naming the key that is wrong.
func ReadReport(cm *corev1.ConfigMap) (Report, error) {
	r := Report{Address: cm.Data[AddressKey]}
	if raw := cm.Data[LatenciesKey]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &r.Latencies); err != nil {
			return Report{}, fmt.Errorf("ConfigMap %s/%s key %q is not a list of measurements: %w", cm.Namespace, cm.Name, LatenciesKey, err)
		}
	}
	return r, nil
}

// reportConfigMap is the prober's ConfigMap with r.
func reportConfigMap(namespace string, r Report) (*corev1.ConfigMap, error) {
	slices.SortFunc(r.Latencies, func(a, b Measurement) int { return strings.Compare(a.Cluster, b.Cluster) })
	data, err := json.Marshal(r.Latencies)
	if err != nil {
		return nil, err
	}
	return configMap(namespace, ProbeConfigMap, map[string]string{AddressKey: r.Address, LatenciesKey: string(data)}), nil
}

// TargetsConfigMapOf is the controller's ConfigMap telling a member's
// prober where the others answer.
func TargetsConfigMapOf(namespace string, targets map[string]string) (*corev1.ConfigMap, error) {
	data, err := json.Marshal(targets)
	if err != nil {
		return nil, err
	}
	return configMap(namespace, TargetsConfigMap, map[string]string{TargetsKey: string(data)}), nil
}

// ReadTargets decodes the controller's ConfigMap.
func ReadTargets(cm *corev1.ConfigMap) (map[string]string, error) {
	out := map[string]string{}
	if raw := cm.Data[TargetsKey]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s key %q is not a map of cluster to address: %w", cm.Namespace, cm.Name, TargetsKey, err)
		}
	}
	return out, nil
}

func configMap(namespace, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace,
			Labels: map[string]string{multiclusterv1alpha1.LabelManagedBy: ManagedBy}},
		Data: maps.Clone(data),
	}
}
