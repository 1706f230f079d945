package multiclusterhpa

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/autoscale"
	"github.com/meridian-dev/meridian/internal/conditions"
	"github.com/meridian-dev/meridian/internal/money"
	"github.com/meridian-dev/meridian/internal/optimizer"
	"github.com/meridian-dev/meridian/internal/optimizer/advisor"
)

// optimizerState is one autoscaler's optimizer, the configuration it was
// made from and where its knowledge base is kept.
type optimizerState struct {
	fingerprint string
	opt         *optimizer.Optimizer
	store       *configMapStore
}

// optimizerConfig converts spec.optimizer; errors name the field, the value
// and what is valid.
func optimizerConfig(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) (optimizer.Config, error) {
	spec := hpa.Spec.Optimizer
	// The band is the model's, in float64; the API server has checked
	// that minThreshold is below maxThreshold, and Validate checks it
	// again for an object written past it.
	lo, hi := spec.Target.MinThreshold.AsApproximateFloat64(), spec.Target.MaxThreshold.AsApproximateFloat64()
	inputs := make([]string, len(spec.Inputs))
	for i, in := range spec.Inputs {
		inputs[i] = in.Name
	}
	cfg := optimizer.Default(inputs, optimizer.Target{Name: spec.Target.Name, Min: lo, Max: hi},
		int(ptr.Deref(hpa.Spec.MinReplicas, 1)), int(hpa.Spec.MaxReplicas))
	cfg.TrainingSamplesRequired = int(ptr.Deref(spec.TrainingSamplesRequired, optimizer.DefaultTrainingSamplesRequired))
	cfg.MaxUpscaleDelta = int(ptr.Deref(spec.MaxUpscaleDelta, optimizer.DefaultMaxUpscaleDelta))
	cfg.MaxDownscaleDelta = int(ptr.Deref(spec.MaxDownscaleDelta, optimizer.DefaultMaxDownscaleDelta))
	if spec.AdviceFreezeInterval != nil {
		cfg.FreezeInterval = spec.AdviceFreezeInterval.Duration
	}
	for i, c := range spec.Clusters {
		price := money.New(c.PricePerHour.Amount, c.PricePerHour.Currency)
		if err := money.ValidCurrency(c.PricePerHour.Currency); err != nil {
			// A price stored before prices carried their currency.
			return optimizer.Config{}, fmt.Errorf("spec.optimizer.clusters[%d].pricePerHour.currency: %w: write the currency the price is in", i, err)
		}
		if price.Sign() < 0 {
			return optimizer.Config{}, fmt.Errorf("spec.optimizer.clusters[%d].pricePerHour.amount %s: must not be negative", i, c.PricePerHour.Amount.String())
		}
		if first := spec.Clusters[0].PricePerHour.Currency; c.PricePerHour.Currency != first {
			return optimizer.Config{}, fmt.Errorf("spec.optimizer.clusters[%d].pricePerHour.currency %q: must be %s, the currency of clusters[0]: the optimizer adds and compares the clusters' prices, so one currency per optimizer: %w",
				i, c.PricePerHour.Currency, first, money.ErrMixedCurrencies)
		}
		cfg.Clusters = append(cfg.Clusters, optimizer.ClusterPrice{Name: c.Name, PricePerHour: price, MaxReplicas: int(c.MaxReplicas)})
	}
	// Each autoscaler explores differently, and the same one the same way
	// after a restart.
	h := fnv.New64a()
	h.Write([]byte(hpa.Namespace + "/" + hpa.Name))
	cfg.Seed = h.Sum64()
	if err := cfg.Validate(); err != nil {
		return optimizer.Config{}, fmt.Errorf("spec.optimizer: %w", err)
	}
	return cfg, nil
}

// optimizerFor returns the autoscaler's optimizer, made anew when its
// configuration changed, from the knowledge base its ConfigMap keeps when
// the metrics' names match. One made from the ConfigMap (the controller
// restarted) resumes the freeze interval's clock from the status: the
// target's count current was set at status.lastScaleTime, so a different
// advice waits until the freeze interval has passed since then.
func (r *Reconciler) optimizerFor(ctx context.Context, hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, cfg optimizer.Config, current int32) (*optimizerState, error) {
	fp, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("failed to encode the optimizer's configuration: %w", err)
	}
	key := client.ObjectKeyFromObject(hpa)
	r.mu.Lock()
	st, ok := r.optimizers[key]
	r.mu.Unlock()
	if ok && st.fingerprint == string(fp) {
		return st, nil
	}
	store := &configMapStore{client: r.Client, reader: r.reader, owner: hpa.DeepCopy()}
	var kb *advisor.KnowledgeBase
	if ok {
		// A changed spec: keep the samples taken so far.
		kb = &advisor.KnowledgeBase{Inputs: st.opt.Config().Inputs, Target: st.opt.Config().Target.Name, Samples: st.opt.Samples()}
	} else if kb, err = store.withContext(ctx).Load(); err != nil {
		return nil, err
	}
	var samples []optimizer.Sample
	if kb != nil && kb.Holds(cfg) {
		samples = kb.Samples
	}
	opt, err := optimizer.New(cfg, samples)
	if err != nil {
		// A stored sample the new configuration refuses: start afresh
		// rather than never start.
		log.FromContext(ctx).Info("Knowledge base does not fit the configuration; starting a new one", "error", err.Error())
		if opt, err = optimizer.New(cfg, nil); err != nil {
			return nil, err
		}
	}
	if ok {
		opt.Resume(st.opt.State())
	} else if t := hpa.Status.LastScaleTime; t != nil {
		opt.Resume(optimizer.State{Replicas: int(current), ChangedAt: t.Time})
	}
	st = &optimizerState{fingerprint: string(fp), opt: opt, store: store}
	r.mu.Lock()
	r.optimizers[key] = st
	r.mu.Unlock()
	return st, nil
}

// optimize runs one interval of the optimizer mode: evaluates the queries,
// adds the sample to the knowledge base and stores it, and returns the
// optimizer's advice; nil when there is none this interval (the reason is
// in the OptimizerSampled condition).
func (r *Reconciler) optimize(ctx context.Context, hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, current int32) *autoscale.Advice {
	fail := func(reason, msg string) *autoscale.Advice {
		set(hpa, multiclusterv1alpha1.ConditionOptimizerSampled, false, reason, conditions.Truncate(msg, 1024))
		return nil
	}
	spec := hpa.Spec.Optimizer
	if hpa.Status.Optimizer == nil {
		hpa.Status.Optimizer = &multiclusterv1alpha1.OptimizerStatus{}
	}
	status := hpa.Status.Optimizer
	status.KnowledgeBase = knowledgeBaseName(hpa)
	cfg, err := optimizerConfig(hpa)
	if err != nil {
		return fail("InvalidOptimizerSpec", err.Error())
	}
	st, err := r.optimizerFor(ctx, hpa, cfg, current)
	if err != nil {
		return fail("KnowledgeBaseUnreadable", err.Error())
	}
	url := spec.PrometheusURL
	if url == "" {
		url = r.PrometheusURL
	}
	if url == "" {
		return fail("NoPrometheus", "spec.optimizer.prometheusURL is empty and the controller has no --prometheus-url: set one of them")
	}

	now := r.Clock.Now()
	sample := optimizer.Sample{Time: now, Replicas: int(current), Inputs: make([]float64, len(spec.Inputs))}
	for i, in := range spec.Inputs {
		if sample.Inputs[i], err = r.Querier.Query(ctx, url, in.Query); err != nil {
			return fail("QueryFailed", fmt.Sprintf("spec.optimizer.inputs[%s] query %q: %v", in.Name, in.Query, err))
		}
	}
	if sample.Target, err = r.Querier.Query(ctx, url, spec.Target.Query); err != nil {
		return fail("QueryFailed", fmt.Sprintf("spec.optimizer.target query %q: %v", spec.Target.Query, err))
	}
	if err := st.opt.Observe(sample); err != nil {
		return fail("InvalidSample", err.Error())
	}
	msg := fmt.Sprintf("sample %d from %s: %s", st.opt.Seen(), url, formatSample(cfg, sample))
	if err := st.store.withContext(ctx).Save(&advisor.KnowledgeBase{Inputs: cfg.Inputs, Target: cfg.Target.Name, Samples: st.opt.Samples()}); err != nil {
		// The sample is kept in memory and written with the next one.
		msg += "; " + err.Error()
		log.FromContext(ctx).Error(err, "Failed to store the knowledge base")
	}
	set(hpa, multiclusterv1alpha1.ConditionOptimizerSampled, true, "QueriesAnswered", conditions.Truncate(msg, 1024))

	adv, err := st.opt.Advise(now)
	if err != nil {
		return fail("NoAdvice", err.Error())
	}
	r.recordOptimizer(hpa, st.opt, adv)
	return &autoscale.Advice{
		Valid:      adv.Valid,
		Production: adv.Phase == optimizer.PhaseProduction,
		Replicas:   int32(min(adv.Replicas, math.MaxInt32)),
		Reason:     adv.Reason,
	}
}

// recordOptimizer writes the optimizer's state into the status and an event
// when its phase changed.
func (r *Reconciler) recordOptimizer(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler, opt *optimizer.Optimizer, adv optimizer.Advice) {
	status := hpa.Status.Optimizer
	phase, why := opt.Phase()
	previous := status.Phase
	status.Phase = multiclusterv1alpha1.OptimizerPhase(phase)
	status.PhaseReason = conditions.Truncate(why, 1024)
	status.Samples = int32(min(opt.Seen(), math.MaxInt32))
	status.Reliability = int32(math.Round(opt.Reliability()))
	sampled := metav1.NewTime(adv.Time)
	status.LastSampleTime = &sampled
	last := &multiclusterv1alpha1.OptimizerAdvice{
		Replicas: int32(min(adv.Replicas, math.MaxInt32)),
		Valid:    adv.Valid,
		Reason:   conditions.Truncate(adv.Reason, 1024),
		Time:     metav1.NewTime(adv.Time),
	}
	if adv.PredictedTarget != nil {
		if q, err := resource.ParseQuantity(strconv.FormatFloat(*adv.PredictedTarget, 'g', 4, 64)); err == nil {
			last.PredictedTarget = &q
		}
	}
	if c := adv.CostPerHour; c != nil {
		last.CostPerHour = &multiclusterv1alpha1.Money{Amount: c.Quantity(), Currency: c.Currency()}
	}
	status.LastAdvice = last
	if previous != "" && previous != status.Phase && r.Recorder != nil {
		r.Recorder.Eventf(hpa, nil, corev1.EventTypeNormal, "OptimizerPhaseChanged", "Optimize",
			"optimizer phase %s -> %s: %s", previous, status.Phase, conditions.Truncate(why, 512))
	}
}

// formatSample writes a sample's values with their names.
func formatSample(cfg optimizer.Config, s optimizer.Sample) string {
	out := fmt.Sprintf("%d replicas", s.Replicas)
	for i, name := range cfg.Inputs {
		out += fmt.Sprintf(", %s %.4g", name, s.Inputs[i])
	}
	return out + fmt.Sprintf(", %s %.4g", cfg.Target.Name, s.Target)
}
