package multiclusterhpa

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/propagation"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update;patch

// Reconciler reconciles MultiClusterHorizontalPodAutoscalers.
type Reconciler struct {
	Client    client.Client
	Inventory *inventory.Inventory
	Recorder  events.EventRecorder
	// Interval is the time between two readings of the metrics (the HPA's
	// default is 15 s).
	Interval time.Duration
	// Clock is the reconciler's time; the real clock when nil.
	Clock clock.PassiveClock
	// PrometheusURL is the Prometheus server the optimizer mode queries
	// when spec.optimizer.prometheusURL is empty (--prometheus-url).
	PrometheusURL string
	// Querier evaluates the optimizer mode's queries; a
	// PrometheusQuerier when nil.
	Querier Querier

	// reader reads the knowledge base ConfigMaps from the API server,
	// without a cache of every ConfigMap.
	reader     client.Reader
	mu         sync.Mutex
	scalers    map[types.NamespacedName]*scaler
	optimizers map[types.NamespacedName]*optimizerState
}

// scaler is the autoscaler of one object with the spec it was made from.
type scaler struct {
	spec autoscale.Spec
	a    *autoscale.Autoscaler
}

// SetupWithManager registers the reconciler.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Interval == 0 {
		r.Interval = 15 * time.Second
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	if r.Querier == nil {
		r.Querier = PrometheusQuerier{}
	}
	r.reader = mgr.GetAPIReader()
	r.scalers = map[types.NamespacedName]*scaler{}
	r.optimizers = map[types.NamespacedName]*optimizerState{}
	return ctrl.NewControllerManagedBy(mgr).
		// Status writes do not wake the reconciler: it runs every
		// Interval, and an optimizer takes one sample per run.
		For(&multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("multiclusterhpa").
		Complete(r)
}

// Reconcile reads the metrics, decides and scales the target.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	hpa := &multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler{}
	if err := r.Client.Get(ctx, req.NamespacedName, hpa); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.scalers, req.NamespacedName)
			delete(r.optimizers, req.NamespacedName)
			r.mu.Unlock()
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := hpa.DeepCopy()
	defer func() {
		hpa.Status.ObservedGeneration = hpa.Generation
		if err := r.Client.Status().Patch(ctx, hpa, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
			retErr = errors.Join(retErr, fmt.Errorf("failed to patch status of MultiClusterHorizontalPodAutoscaler %s: %w", req, err))
		}
	}()
	next := ctrl.Result{RequeueAfter: r.Interval}

	spec, target, err := specOf(hpa)
	cpuConfigured := err == nil
	if err != nil && (hpa.Spec.Optimizer == nil || len(hpa.Spec.Metrics) > 0) {
		set(hpa, multiclusterv1alpha1.ConditionScalingActive, false, "InvalidMetricSpec", err.Error())
		return ctrl.Result{}, nil
	}
	if hpa.Spec.Optimizer == nil {
		hpa.Status.Optimizer = nil
	}
	mcd := &multiclusterv1alpha1.MultiClusterDeployment{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: hpa.Namespace, Name: hpa.Spec.ScaleTargetRef.Name}, mcd); err != nil {
		set(hpa, multiclusterv1alpha1.ConditionAbleToScale, false, "FailedGetScale",
			fmt.Sprintf("failed to read MultiClusterDeployment %s: %v", hpa.Spec.ScaleTargetRef.Name, err))
		return next, client.IgnoreNotFound(err)
	}
	set(hpa, multiclusterv1alpha1.ConditionAbleToScale, true, "SucceededGetScale", "the target is readable and scalable")
	current := ptr.Deref(mcd.Spec.Replicas, 1)
	hpa.Status.CurrentReplicas = current

	var cpu *autoscale.Recommendation
	msg := "no cpu Utilization target in spec.metrics"
	if cpuConfigured {
		cpu, msg = r.recommendByCPU(ctx, hpa, mcd, spec, target, current)
	}
	desired, why := int32(0), ""
	switch {
	case hpa.Spec.Optimizer != nil:
		c := autoscale.Choose(autoscale.ChoiceInput{
			Current:       current,
			MinReplicas:   ptr.Deref(hpa.Spec.MinReplicas, 1),
			MaxReplicas:   hpa.Spec.MaxReplicas,
			Advice:        r.optimize(ctx, hpa, current),
			CPU:           cpu,
			CPUConfigured: cpuConfigured,
		})
		desired, why = c.Desired, fmt.Sprintf("%s: %s", c.Source, c.Reason)
		if !cpuConfigured {
			set(hpa, multiclusterv1alpha1.ConditionScalingActive, c.Source != autoscale.SourceNone, string(c.Source), conditions.Truncate(c.Reason, 1024))
		}
	case cpu == nil:
		hpa.Status.DesiredReplicas = current
		return next, nil
	default:
		desired, why = cpu.Desired, fmt.Sprintf("%s: %s", cpu.Reason, msg)
	}
	hpa.Status.DesiredReplicas = desired
	if desired == current {
		return next, nil
	}
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: desired}}
	if err := r.Client.SubResource("scale").Update(ctx, mcd, client.WithSubResourceBody(scale)); err != nil {
		set(hpa, multiclusterv1alpha1.ConditionAbleToScale, false, "FailedUpdateScale", err.Error())
		return next, fmt.Errorf("failed to scale MultiClusterDeployment %s: %w", mcd.Name, err)
	}
	// The optimizer's freeze interval resumes from this time after a
	// restart, so it is the reconciler's clock.
	now := metav1.NewTime(r.Clock.Now())
	hpa.Status.LastScaleTime = &now
	hpa.Status.LastScaleReason = conditions.Truncate(fmt.Sprintf("from %d to %d: %s", current, desired, why), 1024)
	if r.Recorder != nil {
		r.Recorder.Eventf(hpa, mcd, corev1.EventTypeNormal, "SuccessfulRescale", "Scale", "New size: %d; reason: %s", desired, hpa.Status.LastScaleReason)
	}
	return next, nil
}

// recommendByCPU reads the CPU usage of the target's pods and returns the
// CPU target's recommendation (cool-down applied), nil when no replica
// reports metrics, with a message on what was read.
func (r *Reconciler) recommendByCPU(ctx context.Context, hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, mcd *multiclusterv1alpha1.MultiClusterDeployment,
	spec autoscale.Spec, target float64, current int32) (*autoscale.Recommendation, string) {
	u := readUsage(ctx, r.Inventory, mcd.Namespace, propagation.OwnerOfDeployment(mcd).Selector())
	if u.ready == 0 {
		msg := "no running replica reports CPU metrics yet; the replicas are left as they are"
		if len(u.missing) > 0 {
			msg += ": " + strings.Join(u.missing, "; ")
		}
		set(hpa, multiclusterv1alpha1.ConditionScalingActive, false, "FailedGetResourceMetric", msg)
		return nil, msg
	}
	util := u.utilization()
	msg := fmt.Sprintf("CPU utilization %.0f%% of request over %d replicas (target %.0f%%)", util, u.ready, target)
	if len(u.missing) > 0 {
		msg += "; " + strings.Join(u.missing, "; ")
	}
	set(hpa, multiclusterv1alpha1.ConditionScalingActive, true, "ValidMetricFound", msg)
	hpa.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{
			AverageUtilization: ptr.To(int32(util + 0.5)),
		}},
	}}
	rec := r.scalerFor(hpa, spec, current).Recommend(r.Clock.Now(), autoscale.Observation{Current: current, Ready: u.ready, Unmeasured: u.unmeasured, Utilization: util})
	limited := rec.Reason == autoscale.ReasonAtMaximum || rec.Reason == autoscale.ReasonAtMinimum || rec.Reason == autoscale.ReasonScaleUpLimited
	set(hpa, multiclusterv1alpha1.ConditionScalingLimited, limited, string(rec.Reason), fmt.Sprintf("recommendation %d replicas (%s)", rec.Desired, rec.Reason))
	return &rec, msg
}

// scalerFor returns the object's autoscaler, made anew when its spec
// changed. A new one starts as if current had just been recommended, so a
// restarted controller waits a full cool-down before scaling down.
func (r *Reconciler) scalerFor(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, spec autoscale.Spec, current int32) *autoscale.Autoscaler {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := client.ObjectKeyFromObject(hpa)
	if s, ok := r.scalers[key]; ok && s.spec == spec {
		return s.a
	}
	a := autoscale.New(spec)
	a.Recommend(r.Clock.Now(), autoscale.Observation{Current: current, Ready: current, Utilization: spec.TargetUtilization})
	r.scalers[key] = &scaler{spec: spec, a: a}
	return a
}

// specOf converts the object's spec; only a CPU utilization target is
// supported, and the error says what is not.
func specOf(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) (autoscale.Spec, float64, error) {
	s := autoscale.Spec{
		MinReplicas: ptr.Deref(hpa.Spec.MinReplicas, 1),
		MaxReplicas: hpa.Spec.MaxReplicas,
		CoolDown:    autoscale.DefaultCoolDown,
	}
	if hpa.Spec.ScaleDownCooldown != nil {
		s.CoolDown = hpa.Spec.ScaleDownCooldown.Duration
	}
	if hpa.Spec.TolerancePercent != nil {
		s.Tolerance = float64(*hpa.Spec.TolerancePercent) / 100
	}
	for i, m := range hpa.Spec.Metrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
			m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil {
			s.TargetUtilization = float64(*m.Resource.Target.AverageUtilization)
			return s, s.TargetUtilization, s.Validate()
		}
		if m.Type != autoscalingv2.ResourceMetricSourceType {
			return s, 0, fmt.Errorf("spec.metrics[%d].type %q is not supported yet: use type Resource with cpu Utilization", i, m.Type)
		}
	}
	return s, 0, errors.New("spec.metrics has no cpu Utilization target: add {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: N}}}")
}

func set(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, kind string, ok bool, reason, msg string) {
	conditions.Set(&hpa.Status.Conditions, hpa.Generation, kind, ok, reason, msg)
}
