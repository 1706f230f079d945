package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/karmada"
	"github.com/meridian-dev/meridian/internal/procfs"
	"github.com/meridian-dev/meridian/internal/testbed"
)

// Karmada's performance workload (hack/performance/clusterloader2-*.yaml
// in github.com/karmada-io/karmada at f8fdd02df376, read, not copied):
// per namespace one ConfigMap, Deployments of 10 replicas whose pods mount
// it, and one PropagationPolicy per Deployment (propagateDeps, Divided,
// Weighted), created at 5 per second, over 10 members of 10 nodes of 32
// CPU, 256Gi and 110 pods.
const (
	perfNamespaces  = 10
	perfDeployments = 100
	perfReplicas    = 10
	perfQPS         = 5
	perfMembers     = 10
	perfNodes       = 10
	perfConfigMap   = "test-configmap-0"
)

// PerfProfile is the testbed of Karmada's performance workload: members
// of nodes of Karmada's kwok node (32 CPU, 256Gi, 110 pods).
func PerfProfile(members, nodes int) *testbed.Profile {
	return testbed.Uniform(testbed.UniformOptions{Clusters: members, Nodes: nodes,
		CPU: resource.MustParse("32"), Memory: resource.MustParse("256Gi")})
}

// PropagationOptions say what the propagation benchmark does; zero
// numbers take Karmada's.
type PropagationOptions struct {
	// Testbed is the running testbed; Binary the meridian executable that
	// runs `meridian controller`.
	Testbed *testbed.Testbed
	Binary  string
	// Namespaces, each with Deployments of Replicas replicas.
	Namespaces, Deployments int
	Replicas                int32
	// QPS is how many objects are created per second; negative: all at
	// once.
	QPS float64
	// Timeout bounds the whole run.
	Timeout time.Duration
	// LogDir receives the controller's log (controller.log).
	LogDir string
	// Progress receives a line every few seconds.
	Progress io.Writer
}

// Check reports every setting that cannot work, naming the flag of
// `meridian bench propagation` that sets it.
func (o *PropagationOptions) Check() error {
	var errs []error
	if o.Namespaces < 0 {
		errs = append(errs, fmt.Errorf("invalid --namespaces %d: must be at least 1 (0 for Karmada's %d)", o.Namespaces, perfNamespaces))
	}
	if o.Deployments < 0 {
		errs = append(errs, fmt.Errorf("invalid --deployments %d: must be at least 1 (0 for Karmada's %d)", o.Deployments, perfDeployments))
	}
	if o.Replicas < 0 {
		errs = append(errs, fmt.Errorf("invalid --replicas %d: must be at least 1 (0 for Karmada's %d)", o.Replicas, perfReplicas))
	}
	return errors.Join(append(errs, checkTimeout(o.Timeout))...)
}

func (o *PropagationOptions) defaults() error {
	errs := []error{o.Check(), checkRun(o.Testbed, o.Binary)}
	if o.Namespaces == 0 {
		o.Namespaces = perfNamespaces
	}
	if o.Deployments == 0 {
		o.Deployments = perfDeployments
	}
	if o.Replicas == 0 {
		o.Replicas = perfReplicas
	}
	if o.QPS == 0 {
		o.QPS = perfQPS
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return errors.Join(errs...)
}

// PropagationResult is what the propagation benchmark measured.
type PropagationResult struct {
	Members, Namespaces, Deployments, Pods int
	// Objects were created (ConfigMaps, Deployments, policies) at QPS
	// per second (all at once when negative) in Created.
	Objects int
	QPS     float64
	Created time.Duration
	// Placed is from the first creation until every Deployment's
	// ResourcePlacement said Placed, its member Deployments held its
	// replicas and every member running one had the ConfigMap; Running,
	// until every pod ran (zero if not within the timeout).
	Placed, Running time.Duration
	// ConfigMaps counts the ConfigMap copies in the members at Placed.
	ConfigMaps int
	// CPU is the controller's CPU time over the run; Memory its resident
	// set at the end and at its peak.
	CPU    time.Duration
	Memory memory
}

// Propagation runs Karmada's performance workload as plain manifests and
// Meridian's PropagationPolicies (converted from Karmada's by
// internal/karmada) against a `meridian controller` process.
func Propagation(ctx context.Context, o PropagationOptions) (*PropagationResult, error) {
	if err := o.defaults(); err != nil {
		return nil, fmt.Errorf("invalid propagation options: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	l, err := startLoader(ctx, LoadOptions{Testbed: o.Testbed, Binary: o.Binary, LogDir: o.LogDir, Progress: o.Progress, Timeout: o.Timeout})
	if err != nil {
		return nil, err
	}
	defer l.stop()
	objs, err := perfObjects(o, len(l.members))
	if err != nil {
		return nil, err
	}
	res := &PropagationResult{Members: len(l.members), Namespaces: o.Namespaces, Deployments: o.Namespaces * o.Deployments,
		Pods: o.Namespaces * o.Deployments * int(o.Replicas), QPS: o.QPS}
	for _, batch := range objs {
		res.Objects += len(batch)
	}
	cpu0, err := procfs.CPUTime(l.ctrl.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Progress, "propagation: creating %d objects (%d namespaces, each with 1 ConfigMap, %d Deployments of %d replicas and as many policies) at %s\n",
		res.Objects, o.Namespaces, o.Deployments, o.Replicas, rateString(o.QPS))
	begin := time.Now()
	limit := rate.NewLimiter(rate.Limit(o.QPS), 1)
	if o.QPS < 0 {
		limit = rate.NewLimiter(rate.Inf, 0)
	}
	// In Karmada's order: the namespaces and ConfigMaps, the Deployments,
	// then the policies.
	for _, batch := range objs {
		err := inParallel(ctx, batch, o.Progress, "propagation: created "+batch[0].GetObjectKind().GroupVersionKind().Kind, func(obj client.Object) error {
			if err := limit.Wait(ctx); err != nil {
				return err
			}
			if err := l.mgmt.Create(ctx, obj); client.IgnoreAlreadyExists(err) != nil {
				return fmt.Errorf("failed to create %s %s/%s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetNamespace(), obj.GetName(), err)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
	}
	res.Created = time.Since(begin)
	namespaces := perfNamespaceNames(o.Namespaces)
	err = l.poll(ctx, 3*time.Second, func() (bool, error) {
		p, err := readPerfProgress(ctx, l.mgmt, l.members, namespaces, o.Replicas)
		if err != nil {
			return false, err
		}
		res.ConfigMaps = p.configMaps
		fmt.Fprintf(o.Progress, "propagation: %6.1fs %s\n", time.Since(begin).Seconds(), p)
		return p.placed == res.Deployments && p.deployed == res.Deployments && p.missingConfigMaps == 0, nil
	})
	if err != nil {
		return res, fmt.Errorf("not all %d Deployments placed with their ConfigMaps: %w", res.Deployments, err)
	}
	res.Placed = time.Since(begin)
	running := 0
	_ = l.poll(ctx, 3*time.Second, func() (bool, error) {
		byPhase, err := podPhases(ctx, l.members, namespaces)
		if err != nil {
			return false, err
		}
		running = byPhase[corev1.PodRunning]
		fmt.Fprintf(o.Progress, "propagation: %6.1fs pods %s\n", time.Since(begin).Seconds(), phases(byPhase))
		return running == res.Pods, nil
	})
	if running == res.Pods {
		res.Running = time.Since(begin)
	}
	cpu1, err := procfs.CPUTime(l.ctrl.cmd.Process.Pid)
	if err != nil {
		return res, err
	}
	res.CPU = cpu1 - cpu0
	if res.Memory.RSS, res.Memory.Peak, err = l.ctrl.memory(); err != nil {
		return res, err
	}
	if res.Running == 0 {
		return res, fmt.Errorf("%d of %d pods Running within --timeout %s (see %s)", running, res.Pods, o.Timeout, filepath.Join(o.LogDir, "controller.log"))
	}
	return res, nil
}

func rateString(qps float64) string {
	if qps < 0 {
		return "once"
	}
	return fmt.Sprintf("%g per second", qps)
}

func perfNamespaceNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("meridian-perf-%d", i+1)
	}
	return out
}

// perfObjects returns the workload in creation batches: namespaces and
// ConfigMaps, Deployments, policies. The policies are Karmada's, converted
// by internal/karmada; Karmada's Weighted spreads over every cluster,
// which Meridian says with numberOfLocations (the converter's warning).
func perfObjects(o PropagationOptions, members int) ([][]client.Object, error) {
	var setup, deployments, karmadaPolicies []client.Object
	var policies []client.Object
	for _, ns := range perfNamespaceNames(o.Namespaces) {
		setup = append(setup, &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}})
		setup = append(setup, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: perfConfigMap},
			Data:       map[string]string{"fake-config.yaml": "fake: config\n"}})
		for i := range o.Deployments {
			name := fmt.Sprintf("test-deployment-%d", i)
			deployments = append(deployments, perfDeployment(ns, name, o.Replicas))
			karmadaPolicies = append(karmadaPolicies, karmadaPolicy(ns, name))
		}
	}
	in := make([]*unstructured.Unstructured, len(karmadaPolicies))
	for i, p := range karmadaPolicies {
		in[i] = p.(*unstructured.Unstructured)
	}
	conv, err := karmada.Convert(in)
	if err != nil {
		return nil, fmt.Errorf("failed to convert Karmada's policies: %w", err)
	}
	for _, p := range conv.Policies {
		pp, ok := p.(*multiclusterv1alpha1.PropagationPolicy)
		if !ok {
			return nil, fmt.Errorf("converted %T, want a PropagationPolicy", p)
		}
		pp.Spec.Placement.NumberOfLocations = ptr.To(int32(members))
		policies = append(policies, pp)
	}
	return [][]client.Object{setup, deployments, policies}, nil
}

// perfDeployment is Karmada's test Deployment: pods of a fake image that
// mount the namespace's ConfigMap and ask for nothing. Karmada's pods also
// select and tolerate its kwok nodes' label and taint; the testbed's
// nodes are all kwok nodes, without them.
func perfDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"group": "test-deployment", "name": name}
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"name": name}}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: name, Image: "fake-image",
		VolumeMounts: []corev1.VolumeMount{{Name: "configmap", MountPath: "/var/configmap"}}}}
	d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "configmap", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: perfConfigMap}}}}}
	return d
}

// karmadaPolicy is Karmada's test PropagationPolicy for the Deployment
// name: its dependencies follow it, its replicas divided with weights.
func karmadaPolicy(ns, name string) client.Object {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policy.karmada.io/v1alpha1",
		"kind":       "PropagationPolicy",
		"metadata":   map[string]any{"namespace": ns, "name": name},
		"spec": map[string]any{
			"propagateDeps":     true,
			"resourceSelectors": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}},
			"placement": map[string]any{"replicaScheduling": map[string]any{
				"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
			}},
		},
	}}
}

// perfProgress counts how far the workload is.
type perfProgress struct {
	// placed Deployments' ResourcePlacements say Placed; deployed ones
	// have member Deployments summing to their replicas.
	placed, deployed int
	// configMaps are the ConfigMap copies in the members;
	// missingConfigMaps the members running a replica of a namespace
	// without its ConfigMap.
	configMaps, missingConfigMaps int
}

func (p perfProgress) String() string {
	return fmt.Sprintf("%d Deployments placed, %d with their member Deployments; %d ConfigMap copies, %d missing", p.placed, p.deployed, p.configMaps, p.missingConfigMaps)
}

func readPerfProgress(ctx context.Context, mgmt client.Client, members map[string]client.Client, namespaces []string, replicas int32) (perfProgress, error) {
	var p perfProgress
	for _, ns := range namespaces {
		var rps multiclusterv1alpha1.ResourcePlacementList
		if err := mgmt.List(ctx, &rps, client.InNamespace(ns)); err != nil {
			return p, fmt.Errorf("failed to list ResourcePlacements in %s: %w", ns, err)
		}
		for i := range rps.Items {
			rp := &rps.Items[i]
			if rp.Spec.Resource.Kind == "Deployment" && meta.IsStatusConditionTrue(rp.Status.Conditions, multiclusterv1alpha1.ConditionPlaced) {
				p.placed++
			}
		}
		got := map[string]int32{}
		var mu sync.Mutex
		err := eachMember(members, func(name string, c client.Client) error {
			var deps appsv1.DeploymentList
			if err := c.List(ctx, &deps, client.InNamespace(ns)); err != nil {
				return fmt.Errorf("failed to list Deployments in %s: %w", name, err)
			}
			cm := &corev1.ConfigMap{}
			err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: perfConfigMap}, cm)
			if client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("failed to read ConfigMap %s/%s in %s: %w", ns, perfConfigMap, name, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range deps.Items {
				got[d.Name] += ptr.Deref(d.Spec.Replicas, 1)
			}
			switch {
			case err == nil:
				p.configMaps++
			case len(deps.Items) > 0:
				p.missingConfigMaps++
			}
			return nil
		})
		for _, n := range got {
			if n == replicas {
				p.deployed++
			}
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// PropagationTable writes the propagation benchmark's table.
func PropagationTable(w io.Writer, r *PropagationResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "workload\tmembers\tobjects created\tall placed (after the last creation)\tall pods Running\tcontroller CPU\tcontroller RSS (peak)\n")
	running := "not within the timeout"
	if r.Running > 0 {
		running = seconds(r.Running)
	}
	fmt.Fprintf(tw, "%d namespaces x %d Deployments x %d replicas (%d pods)\t%d\t%d at %s in %s\t%s (%s); %d ConfigMap copies\t%s\t%s\t%s\n",
		r.Namespaces, r.Deployments/max(1, r.Namespaces), r.Pods/max(1, r.Deployments), r.Pods, r.Members,
		r.Objects, rateString(r.QPS), seconds(r.Created), seconds(r.Placed), seconds(r.Placed-r.Created), r.ConfigMaps,
		running, seconds(r.CPU), r.Memory)
	return tw.Flush()
}

// podPhases counts the members' pods in namespaces by phase, with one list
// of each member's pods.
func podPhases(ctx context.Context, members map[string]client.Client, namespaces []string) (map[corev1.PodPhase]int, error) {
	var mu sync.Mutex
	out := map[corev1.PodPhase]int{}
	err := eachMember(members, func(name string, c client.Client) error {
		var pods corev1.PodList
		if err := c.List(ctx, &pods); err != nil {
			return fmt.Errorf("failed to list pods in %s: %w", name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, p := range pods.Items {
			if slices.Contains(namespaces, p.Namespace) {
				out[p.Status.Phase]++
			}
		}
		return nil
	})
	return out, err
}
