package multiclusterhpa

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/optimizer/advisor"
)

// fieldOwner is the field manager of the knowledge base ConfigMaps.
const fieldOwner = "meridian"

// knowledgeBaseKey is the ConfigMap key that holds the knowledge base, in
// the advisor's JSON.
const knowledgeBaseKey = "knowledge-base.json"

// knowledgeBaseName is the name of the ConfigMap that keeps an autoscaler's
// knowledge base.
func knowledgeBaseName(hpa *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler) string {
	return hpa.Name + "-optimizer-kb"
}

// configMapStore is an advisor.Store in a ConfigMap owned by the
// autoscaler, so the knowledge base survives restarts of the controller
// and goes with the autoscaler. 1,000 samples of a few metrics take about
// 100 kB, well under a ConfigMap's 1 MiB.
type configMapStore struct {
	ctx    context.Context
	client client.Client
	reader client.Reader
	owner  *multiclusterv1alpha1.MultiClusterHorizontalPodAutoscaler
}

var _ advisor.Store = &configMapStore{}

// withContext returns a copy of s whose calls use ctx: advisor.Store's
// methods take none.
func (s configMapStore) withContext(ctx context.Context) *configMapStore {
	s.ctx = ctx
	return &s
}

// Load reads the ConfigMap; a missing one is no knowledge base.
func (s *configMapStore) Load() (*advisor.KnowledgeBase, error) {
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: s.owner.Namespace, Name: knowledgeBaseName(s.owner)}
	if err := s.reader.Get(s.ctx, key, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("failed to read the knowledge base ConfigMap %s: %w", key, err)
	}
	data, ok := cm.Data[knowledgeBaseKey]
	if !ok {
		return nil, nil
	}
	var kb advisor.KnowledgeBase
	if err := json.Unmarshal([]byte(data), &kb); err != nil {
		return nil, fmt.Errorf("failed to parse the knowledge base in ConfigMap %s key %s: %w", key, knowledgeBaseKey, err)
	}
	return &kb, nil
}

// Save writes the ConfigMap with server-side apply, owned by the
// autoscaler.
func (s *configMapStore) Save(kb *advisor.KnowledgeBase) error {
	data, err := json.Marshal(kb)
	if err != nil {
		return fmt.Errorf("failed to encode the knowledge base: %w", err)
	}
	name := knowledgeBaseName(s.owner)
	cm := corev1ac.ConfigMap(name, s.owner.Namespace).
		WithLabels(map[string]string{"app.kubernetes.io/managed-by": "meridian"}).
		WithData(map[string]string{knowledgeBaseKey: string(data)}).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(multiclusterv1alpha1.GroupVersion.String()).
			WithKind("MultiClusterHorizontalPodAutoscaler").
			WithName(s.owner.Name).
			WithUID(s.owner.UID))
	if err := s.client.Apply(s.ctx, cm, client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return fmt.Errorf("failed to write the knowledge base ConfigMap %s/%s: %w", s.owner.Namespace, name, err)
	}
	return nil
}
