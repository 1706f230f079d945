// Package scheme builds the runtime.Scheme of every client Meridian makes,
// in the management cluster and in members: the core Kubernetes types,
// CustomResourceDefinitions, Meridian's API, and the Multi-Cluster Services
// API (ServiceExport) that MultiClusterServices write into members, and the
// resource metrics API (metrics.k8s.io) the autoscaler reads.
package scheme

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	sharingv1alpha1 "github.com/meridian-dev/meridian/api/sharing/v1alpha1"
	"github.com/meridian-dev/meridian/internal/clusterinventory"
)

// New returns a new scheme with every kind Meridian reads or writes.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		multiclusterv1alpha1.AddToScheme,
		computev1alpha1.AddToScheme,
		sharingv1alpha1.AddToScheme,
		mcsv1beta1.Install,
		metricsv1beta1.AddToScheme,
		clusterinventory.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("failed to build scheme: %v", err))
		}
	}
	return s
}
