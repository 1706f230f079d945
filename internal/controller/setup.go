package controller

import (
	"cmp"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	mcsv1beta1 "sigs.k8s.io/mcs-api/pkg/apis/v1beta1"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/carbon"
	"github.com/meridian-dev/meridian/internal/cloud"
	"github.com/meridian-dev/meridian/internal/clusterinventory"
	"github.com/meridian-dev/meridian/internal/controller/cloudprovisioner"
	"github.com/meridian-dev/meridian/internal/controller/cloudvm"
	"github.com/meridian-dev/meridian/internal/controller/cluster"
	"github.com/meridian-dev/meridian/internal/controller/clusterprofile"
	"github.com/meridian-dev/meridian/internal/controller/dependencies"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterdeployment"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterhpa"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterjob"
	"github.com/meridian-dev/meridian/internal/controller/multiclusterservice"
	"github.com/meridian-dev/meridian/internal/controller/propagationpolicy"
	"github.com/meridian-dev/meridian/internal/controller/resourceplacement"
	"github.com/meridian-dev/meridian/internal/decide"
	"github.com/meridian-dev/meridian/internal/inventory"
	"github.com/meridian-dev/meridian/internal/placement"
	"github.com/meridian-dev/meridian/internal/placement/plugins"
	"github.com/meridian-dev/meridian/internal/placement/plugins/learned"
	"github.com/meridian-dev/meridian/internal/propagation"
	"github.com/meridian-dev/meridian/internal/traffic"
)

// DefaultNamespace is the controller's namespace unless told otherwise.
const DefaultNamespace = "meridian-system"

// Options tune the management-plane controllers.
type Options struct {
	// Namespace holds kubeconfig Secrets that name no namespace, and the
	// ResourcePlacements of cluster-scoped objects; empty means
	// DefaultNamespace.
	Namespace string
	// HeartbeatInterval and HeartbeatTimeout bound how soon a member that
	// stops answering turns NotReady (at most their sum).
	HeartbeatInterval time.Duration
	HeartbeatTimeout  time.Duration
	// TokenRenewBefore is how long before it expires a member token that
	// `meridian join` issued is renewed; zero renews once a third of its
	// lifetime is left.
	TokenRenewBefore time.Duration
	// PendingGrace is how long replicas may stay Unschedulable in a member
	// before the overflow is placed elsewhere.
	PendingGrace time.Duration
	// FailoverGrace is how long a member may be not ready before its
	// replicas are placed elsewhere; zero holds them until it returns.
	FailoverGrace time.Duration
	// AutoscaleInterval is the time between two metric readings of a
	// multi-cluster HPA.
	AutoscaleInterval time.Duration
	// OrphanSweepInterval is the time between two sweeps for member objects
	// whose owner is gone.
	OrphanSweepInterval time.Duration
	// CloudBackends create the clusters CloudProvisioners ask for, by
	// spec.backend; a CloudProvisioner whose backend is missing waits.
	CloudBackends map[multiclusterv1alpha1.ProvisionerBackend]cloud.Backend
	// ProvisionerPeriod is the time between two decisions of a
	// CloudProvisioner.
	ProvisionerPeriod time.Duration
	// Traffic is where TrafficAware workloads' traffic is read; nil places
	// them without traffic.
	Traffic traffic.Source
	// TrafficInterval is the time between two traffic readings of a
	// workload.
	TrafficInterval time.Duration
	// CloudVMStartSlack is how long after its planned start a CloudVM may
	// still be started (by a controller that was restarting); a VM reached
	// later is Failed instead of started late. Zero takes
	// decide.DefaultVMTiming's.
	CloudVMStartSlack time.Duration
	// CloudVMPoll is the time between two passes of a CloudVM whose
	// provider objects exist, to follow kinds that are not watched; zero
	// takes decide.DefaultVMTiming's.
	CloudVMPoll time.Duration
	// Carbon returns the grid zones' carbon intensities (the carbon
	// scheduler's latest snapshot) for MultiClusterDeployment and
	// MultiClusterJob placement's Carbon score; nil places without them.
	Carbon func() placement.CarbonIntensity
	// CarbonHistory reads the intensities of the hours a finished CloudVM
	// ran, to account its emissions; nil accounts nothing.
	CarbonHistory carbon.Source
	// PrometheusURL is the Prometheus server that the optimizer mode of
	// MultiClusterHorizontalPodAutoscalers queries when their
	// spec.optimizer.prometheusURL is empty.
	PrometheusURL string
	// EmissionsTiming says when finished CloudVMs and MultiClusterJobs are
	// accounted; zero fields take decide.DefaultEmissionsTiming's.
	EmissionsTiming decide.EmissionsTiming
	// ClusterModel is the file of the learned cluster scorer that the
	// Learned placement policy ranks clusters with (meridian learn train
	// --level cluster); empty uses the model shipped in the binary.
	ClusterModel string
	// ImportClusterProfiles takes members from other cluster managers'
	// ClusterProfiles in the controller's namespace (the Cluster Inventory
	// API); Meridian's own members get a ClusterProfile there either way,
	// when the management cluster serves the CRD.
	ImportClusterProfiles bool
}

// SweptKinds are the owners whose member objects the orphan sweeper checks.
func SweptKinds() []propagation.SweptKind {
	return []propagation.SweptKind{{
		OwnerKind: multiclusterdeployment.Kind,
		NewOwner:  func() client.Object { return &multiclusterv1alpha1.MultiClusterDeployment{} },
		NewLists:  func() []client.ObjectList { return []client.ObjectList{&appsv1.DeploymentList{}} },
	}, {
		OwnerKind: multiclusterjob.Kind,
		NewOwner:  func() client.Object { return &multiclusterv1alpha1.MultiClusterJob{} },
		NewLists:  func() []client.ObjectList { return []client.ObjectList{&batchv1.JobList{}} },
	}, {
		// A ResourcePlacement's member objects may be of any kind: those a
		// policy most often places are swept, by their metadata only.
		OwnerKind: resourceplacement.Kind,
		NewOwner:  func() client.Object { return &multiclusterv1alpha1.ResourcePlacement{} },
		NewLists:  propagation.MemberLists,
	}, {
		OwnerKind: multiclusterservice.Kind,
		NewOwner:  func() client.Object { return &multiclusterv1alpha1.MultiClusterService{} },
		NewLists: func() []client.ObjectList {
			return []client.ObjectList{&corev1.ServiceList{}, &mcsv1beta1.ServiceExportList{}}
		},
	}}
}

// Setup adds the inventory and every management-plane controller to mgr.
func Setup(mgr ctrl.Manager, opts Options) (*inventory.Inventory, error) {
	placements := cmp.Or(opts.Namespace, DefaultNamespace)
	reg := plugins.NewRegistry()
	if opts.ClusterModel != "" {
		reg[learned.Name] = learned.Factory(opts.ClusterModel)
	}
	fw, err := placement.NewFramework(reg, plugins.Profiles()...)
	if err != nil {
		return nil, fmt.Errorf("failed to build the placement framework: %w", err)
	}
	inv := inventory.New(inventory.Options{})
	// One set of assumptions for every kind of workload, so that a job and a
	// deployment placed back to back never promise the same room twice.
	assumptions := placement.NewAssumptions()
	if err := mgr.Add(inv); err != nil {
		return nil, fmt.Errorf("failed to add the inventory: %w", err)
	}
	if err := (&cluster.Reconciler{
		Client:            mgr.GetClient(),
		Inventory:         inv,
		Recorder:          mgr.GetEventRecorder("meridian-cluster"),
		Namespace:         opts.Namespace,
		HeartbeatInterval: opts.HeartbeatInterval,
		HeartbeatTimeout:  opts.HeartbeatTimeout,
		TokenRenewBefore:  opts.TokenRenewBefore,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the Cluster controller: %w", err)
	}
	deployments := &multiclusterdeployment.Reconciler{
		Client:          mgr.GetClient(),
		APIReader:       mgr.GetAPIReader(),
		Inventory:       inv,
		Framework:       fw,
		Assumptions:     assumptions,
		Recorder:        mgr.GetEventRecorder("meridian-placement"),
		PendingGrace:    opts.PendingGrace,
		FailoverGrace:   opts.FailoverGrace,
		Traffic:         opts.Traffic,
		TrafficInterval: opts.TrafficInterval,
		Carbon:          opts.Carbon,
	}
	if err := deployments.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MultiClusterDeployment controller: %w", err)
	}
	jobs := &multiclusterjob.Reconciler{
		Client:          mgr.GetClient(),
		Inventory:       inv,
		Framework:       fw,
		Assumptions:     assumptions,
		Recorder:        mgr.GetEventRecorder("meridian-placement"),
		PendingGrace:    opts.PendingGrace,
		Carbon:          opts.Carbon,
		Intensities:     opts.CarbonHistory,
		EmissionsTiming: opts.EmissionsTiming,
	}
	if err := jobs.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MultiClusterJob controller: %w", err)
	}
	if err := (&multiclusterhpa.Reconciler{
		Client:        mgr.GetClient(),
		Inventory:     inv,
		Recorder:      mgr.GetEventRecorder("meridian-autoscaler"),
		Interval:      opts.AutoscaleInterval,
		PrometheusURL: opts.PrometheusURL,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MultiClusterHorizontalPodAutoscaler controller: %w", err)
	}
	if err := (&multiclusterservice.Reconciler{
		Client:    mgr.GetClient(),
		Inventory: inv,
		Recorder:  mgr.GetEventRecorder("meridian-service"),
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the MultiClusterService controller: %w", err)
	}
	if err := (&dependencies.Reconciler{
		Client:    mgr.GetClient(),
		Inventory: inv,
		Recorder:  mgr.GetEventRecorder("meridian-dependencies"),
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the dependencies controller: %w", err)
	}
	if err := (&resourceplacement.Reconciler{
		Client:             mgr.GetClient(),
		Inventory:          inv,
		Duplicator:         fw,
		Deployments:        deployments,
		Jobs:               jobs,
		Recorder:           mgr.GetEventRecorder("meridian-placement"),
		PlacementNamespace: placements,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the ResourcePlacement controller: %w", err)
	}
	if err := (&propagationpolicy.Reconciler{
		Client:             mgr.GetClient(),
		Recorder:           mgr.GetEventRecorder("meridian-propagation"),
		PlacementNamespace: placements,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the propagation policy controller: %w", err)
	}
	if err := (&cloudprovisioner.Reconciler{
		Client:    mgr.GetClient(),
		Inventory: inv,
		Recorder:  mgr.GetEventRecorder("meridian-provisioner"),
		Backends:  opts.CloudBackends,
		Namespace: opts.Namespace,
		Period:    opts.ProvisionerPeriod,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the CloudProvisioner controller: %w", err)
	}
	if err := (&cloudvm.Reconciler{
		Client:          mgr.GetClient(),
		APIReader:       mgr.GetAPIReader(),
		Recorder:        mgr.GetEventRecorder("meridian-cloudvm"),
		Timing:          decide.VMTiming{StartSlack: opts.CloudVMStartSlack, Poll: opts.CloudVMPoll},
		Intensities:     opts.CarbonHistory,
		EmissionsTiming: opts.EmissionsTiming,
	}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("failed to set up the CloudVM controller: %w", err)
	}
	if err := mgr.Add(&propagation.Sweeper{
		Reader: mgr.GetAPIReader(), Inventory: inv, Interval: opts.OrphanSweepInterval, Kinds: SweptKinds(),
	}); err != nil {
		return nil, fmt.Errorf("failed to add the orphan sweeper: %w", err)
	}
	if err := setupClusterProfiles(mgr, placements, opts.ImportClusterProfiles); err != nil {
		return nil, err
	}
	return inv, nil
}

// setupClusterProfiles adds the ClusterProfile controller when the
// management cluster serves the Cluster Inventory API.
func setupClusterProfiles(mgr ctrl.Manager, namespace string, importProfiles bool) error {
	gvk := clusterinventory.GroupVersion.WithKind("ClusterProfile")
	if _, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		if meta.IsNoMatchError(err) {
			mgr.GetLogger().Info("The management cluster does not serve ClusterProfiles (multicluster.x-k8s.io); members get none", "install", "kubectl apply --server-side -f internal/clusterinventory/crd/")
			return nil
		}
		return fmt.Errorf("failed to find whether the management cluster serves ClusterProfiles: %w", err)
	}
	if err := (&clusterprofile.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("meridian-clusterprofile"),
		Namespace: namespace,
		Import:    importProfiles,
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("failed to set up the ClusterProfile controller: %w", err)
	}
	return nil
}
