package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/sharing"
)

// unschedulable reports whether the scheduler found no node for p.
func unschedulable(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}

// fitsAccepted reports whether requests fit one accepted shape of an
// accepted, unexpired advertisement: a virtual node of that shape can take
// the pod, so no auction is needed.
func fitsAccepted(requests corev1.ResourceList, advs []sharingv1alpha1.Advertisement, now time.Time) bool {
	for i := range advs {
		a := &advs[i]
		if a.Status.Decision != sharingv1alpha1.DecisionAccepted || sharing.Expired(&a.Spec, now, 0) {
			continue
		}
		for _, s := range a.Spec.Availability {
			if len(a.Status.AcceptedShapes) > 0 && !contains(a.Status.AcceptedShapes, s.Name) {
				continue
			}
			need := requests.DeepCopy()
			delete(need, corev1.ResourcePods)
			if sharing.Fits(need, s.Resources) {
				return true
			}
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// appOf names the application a pod belongs to: its controller, or the
// pod itself.
func appOf(p *corev1.Pod) string {
	name := p.Name
	if o := metav1.GetControllerOf(p); o != nil {
		name = o.Name
	}
	return strings.ToLower(p.Namespace + "." + name)
}

// quoteFor is the quote for the pods of one application that are
// unschedulable and fit no accepted advertisement: a component per
// distinct set of requests, with its replicas; false when no pod needs
// one.
func quoteFor(consumer sharingv1alpha1.ClusterID, app string, pods []corev1.Pod, advs []sharingv1alpha1.Advertisement, now time.Time, window time.Duration) (sharingv1alpha1.QuoteSpec, bool) {
	byKey := map[string]*sharingv1alpha1.Component{}
	var keys []string
	for i := range pods {
		p := &pods[i]
		if appOf(p) != app || !unschedulable(p) {
			continue
		}
		req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		if fitsAccepted(req, advs, now) {
			continue
		}
		k := fmt.Sprint(req.Cpu().MilliValue(), "/", req.Memory().Value(), "/", p.Spec.NodeSelector)
		if c, ok := byKey[k]; ok {
			c.Replicas++
			continue
		}
		requests := map[corev1.ResourceName]resource.Quantity{}
		for n, q := range req {
			requests[n] = q
		}
		byKey[k] = &sharingv1alpha1.Component{Replicas: 1, Requests: requests, NodeSelector: p.Spec.NodeSelector}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return sharingv1alpha1.QuoteSpec{}, false
	}
	sort.Strings(keys)
	spec := sharingv1alpha1.QuoteSpec{Consumer: consumer, AppID: app,
		Timestamp: metav1.NewTime(now), Deadline: metav1.NewTime(now.Add(window))}
	for i, k := range keys {
		c := *byKey[k]
		c.Name = fmt.Sprintf("c%d", i)
		spec.Components = append(spec.Components, c)
	}
	return spec, true
}

// quoteName names the auction of app by this consumer: the same in every
// cluster, so offers and acknowledgements find it.
func quoteName(consumer sharingv1alpha1.ClusterID, app string) string {
	sum := sha256.Sum256([]byte(string(consumer) + "/" + app))
	short := app
	if len(short) > 40 {
		short = strings.Trim(short[:40], ".-")
	}
	return fmt.Sprintf("%s.%s.%s", consumer, short, hex.EncodeToString(sum[:])[:8])
}
