package virtualnode

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
)

// createTwin makes the twin namespace, reflects the ConfigMaps and Secrets
// pod references, and creates the twin (one that already exists for this
// pod is returned as it is).
func (r *PodReflector) createTwin(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	twin := Twin(pod, r.Options.ConsumerID)
	unlock := r.copies.lock(twin.Namespace)
	defer unlock()
	if err := r.ensureNamespace(ctx, twin.Namespace); err != nil {
		return nil, err
	}
	refs := ReferencesOf(pod)
	for _, name := range refs.ConfigMaps {
		if err := r.reflectConfigMap(ctx, pod.Namespace, name, twin.Namespace); err != nil {
			return nil, err
		}
	}
	for _, name := range refs.Secrets {
		if err := r.reflectSecret(ctx, pod.Namespace, name, twin.Namespace); err != nil {
			return nil, err
		}
	}
	if err := r.Provider.Create(ctx, twin); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("failed to create twin %s/%s: %w", twin.Namespace, twin.Name, err)
		}
		live := &corev1.Pod{}
		if err := r.ProviderReader.Get(ctx, client.ObjectKeyFromObject(twin), live); err != nil {
			return nil, fmt.Errorf("failed to get twin %s/%s: %w", twin.Namespace, twin.Name, err)
		}
		if live.Labels[LabelOriginUID] != string(pod.UID) {
			return nil, fmt.Errorf("twin %s/%s belongs to an earlier pod %s", twin.Namespace, twin.Name, live.Labels[LabelOriginUID])
		}
		return live, nil
	}
	return twin, nil
}

// ensureNamespace makes the twin namespace and its default service
// account (which the provider's controller manager would make too, but
// the ServiceAccount admission plugin refuses pods before it exists).
func (r *PodReflector) ensureNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{sharingv1alpha1.LabelConsumer: string(r.Options.ConsumerID)}}}
	if err := r.Provider.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to create twin namespace %q: %w", name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "default"}, AutomountServiceAccountToken: new(bool)}
	if err := r.Provider.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to create default service account in twin namespace %q: %w", name, err)
	}
	return nil
}

func reflectedMeta(src metav1.Object, namespace string, consumer sharingv1alpha1.ClusterID) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: namespace, Name: src.GetName(),
		Labels: map[string]string{
			sharingv1alpha1.LabelConsumer: string(consumer),
			LabelOriginUID:                string(src.GetUID()),
		},
		Annotations: map[string]string{AnnotationOrigin: src.GetNamespace() + "/" + src.GetName()},
	}
}

// reflectConfigMap copies a ConfigMap into the twin namespace; one the
// pod names but that does not exist is left out, and the twin waits for
// it as the pod would.
func (r *PodReflector) reflectConfigMap(ctx context.Context, namespace, name, into string) error {
	src := &corev1.ConfigMap{}
	if err := r.ConsumerReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("failed to get ConfigMap %s/%s: %w", namespace, name, err)
	}
	want := &corev1.ConfigMap{ObjectMeta: reflectedMeta(src, into, r.Options.ConsumerID), Data: src.Data, BinaryData: src.BinaryData}
	return r.upsert(ctx, want, &corev1.ConfigMap{}, func(live client.Object) bool {
		l := live.(*corev1.ConfigMap)
		if equality.Semantic.DeepEqual(l.Data, want.Data) && equality.Semantic.DeepEqual(l.BinaryData, want.BinaryData) {
			return false
		}
		l.Data, l.BinaryData = want.Data, want.BinaryData
		return true
	})
}

// reflectSecret copies a Secret into the twin namespace; service account
// token Secrets are never copied.
func (r *PodReflector) reflectSecret(ctx context.Context, namespace, name, into string) error {
	src := &corev1.Secret{}
	if err := r.ConsumerReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, src); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("failed to get Secret %s/%s: %w", namespace, name, err)
	}
	if src.Type == corev1.SecretTypeServiceAccountToken {
		return nil
	}
	want := &corev1.Secret{ObjectMeta: reflectedMeta(src, into, r.Options.ConsumerID), Type: src.Type, Data: src.Data}
	return r.upsert(ctx, want, &corev1.Secret{}, func(live client.Object) bool {
		l := live.(*corev1.Secret)
		if equality.Semantic.DeepEqual(l.Data, want.Data) {
			return false
		}
		l.Data = want.Data
		return true
	})
}

// upsert creates want, or updates the live object when changed says so.
func (r *PodReflector) upsert(ctx context.Context, want, live client.Object, changed func(client.Object) bool) error {
	err := r.Provider.Create(ctx, want)
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("failed to reflect %T %s/%s: %w", want, want.GetNamespace(), want.GetName(), err)
	}
	if err := r.ProviderReader.Get(ctx, client.ObjectKeyFromObject(want), live); err != nil {
		return fmt.Errorf("failed to get reflected %T %s/%s: %w", want, want.GetNamespace(), want.GetName(), err)
	}
	if !changed(live) {
		return nil
	}
	if err := r.Provider.Update(ctx, live); err != nil {
		return fmt.Errorf("failed to update reflected %T %s/%s: %w", want, want.GetNamespace(), want.GetName(), err)
	}
	return nil
}
