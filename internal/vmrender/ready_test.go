package vmrender

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// object builds an object of apiVersion and kind with generation and
// status.
func object(apiVersion, kind string, generation int64, status map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": "vm1", "namespace": "team-a", "generation": generation},
	}}
	if status != nil {
		o.Object["status"] = status
	}
	return o
}

// conds is a status with the given conditions, each type, status,
// reason, message.
func conds(c ...map[string]any) map[string]any {
	list := make([]any, len(c))
	for i := range c {
		list[i] = c[i]
	}
	return map[string]any{"conditions": list}
}

func TestReady(t *testing.T) {
	type result struct {
		Ready   bool
		Message string
	}
	tests := []struct {
		name string
		obj  *unstructured.Unstructured
		want result
	}{
		{
			name: "aso ready",
			obj: object("compute.azure.com/v1api20220301", "VirtualMachine", 1, conds(
				map[string]any{"type": "Ready", "status": "True", "severity": "", "reason": "Succeeded", "observedGeneration": int64(1)})),
			want: result{true, "Succeeded"},
		},
		{
			name: "aso reconciling",
			obj: object("network.azure.com/v1api20201101", "NetworkInterface", 1, conds(
				map[string]any{"type": "Ready", "status": "False", "severity": "Info", "reason": "Reconciling", "message": "The resource is in the process of being reconciled by the operator", "observedGeneration": int64(1)})),
			want: result{false, "Reconciling: The resource is in the process of being reconciled by the operator"},
		},
		{
			name: "aso error",
			obj: object("resources.azure.com/v1api20200601", "ResourceGroup", 1, conds(
				map[string]any{"type": "Ready", "status": "False", "severity": "Error", "reason": "AuthorizationFailed", "message": "The client does not have authorization", "observedGeneration": int64(1)})),
			want: result{false, "AuthorizationFailed: The client does not have authorization"},
		},
		{
			name: "aso ready for an older generation",
			obj: object("compute.azure.com/v1api20220301", "VirtualMachine", 3, conds(
				map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "observedGeneration": int64(2)})),
			want: result{false, "waiting for the operator to observe generation 3 (it reported on 2)"},
		},
		{
			name: "aso no status yet",
			obj:  object("compute.azure.com/v1api20220301", "VirtualMachine", 1, nil),
			want: result{false, "waiting for the operator to report condition Ready"},
		},
		{
			name: "kcc ready",
			obj: object("compute.cnrm.cloud.google.com/v1beta1", "ComputeInstance", 2, map[string]any{
				"observedGeneration": int64(2),
				"conditions":         []any{map[string]any{"type": "Ready", "status": "True", "reason": "UpToDate", "message": "The resource is up to date"}},
			}),
			want: result{true, "UpToDate: The resource is up to date"},
		},
		{
			name: "kcc update failed",
			obj: object("compute.cnrm.cloud.google.com/v1beta1", "ComputeSubnetwork", 1, map[string]any{
				"observedGeneration": int64(1),
				"conditions":         []any{map[string]any{"type": "Ready", "status": "False", "reason": "UpdateFailed", "message": "Update call failed: error applying desired state"}},
			}),
			want: result{false, "UpdateFailed: Update call failed: error applying desired state"},
		},
		{
			name: "kcc dependency not ready",
			obj: object("compute.cnrm.cloud.google.com/v1beta1", "ComputeInstance", 1, map[string]any{
				"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "DependencyNotReady", "message": "reference ComputeSubnetwork team-a/vm1-subnet is not ready"}},
			}),
			want: result{false, "DependencyNotReady: reference ComputeSubnetwork team-a/vm1-subnet is not ready"},
		},
		{
			name: "kcc ready for an older generation",
			obj: object("compute.cnrm.cloud.google.com/v1beta1", "ComputeInstance", 2, map[string]any{
				"observedGeneration": int64(1),
				"conditions":         []any{map[string]any{"type": "Ready", "status": "True", "reason": "UpToDate"}},
			}),
			want: result{false, "waiting for the operator to observe generation 2 (it reported on 1)"},
		},
		{
			name: "ack vpc synced",
			obj: object("ec2.services.k8s.aws/v1alpha1", "VPC", 1, conds(
				map[string]any{"type": "ACK.ResourceSynced", "status": "True", "message": "Resource synced successfully"})),
			want: result{true, "Resource synced successfully"},
		},
		{
			name: "ack subnet not synced",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Subnet", 1, conds(
				map[string]any{"type": "ACK.ResourceSynced", "status": "False", "message": "Resource not synced", "reason": "resource is in the process of being created"})),
			want: result{false, "resource is in the process of being created: Resource not synced"},
		},
		{
			name: "ack reference not resolved",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Instance", 1, conds(
				map[string]any{"type": "ACK.ReferencesResolved", "status": "False", "message": "Reference resolution failed", "reason": "referenced resource Subnet team-a/vm1-subnet does not have a status"})),
			want: result{false, "waiting for the ACK controller to report condition ACK.ResourceSynced"},
		},
		{
			name: "ack terminal",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Instance", 1, conds(
				map[string]any{"type": "ACK.Terminal", "status": "True", "message": "InvalidAMIID.Malformed: Invalid id"},
				map[string]any{"type": "ACK.ResourceSynced", "status": "False"})),
			want: result{false, "InvalidAMIID.Malformed: Invalid id"},
		},
		{
			name: "ack instance synced but pending",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Instance", 1, map[string]any{
				"state":      map[string]any{"name": "pending", "code": int64(0)},
				"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": "True"}},
			}),
			want: result{false, "instance state is pending, not running"},
		},
		{
			name: "ack instance synced without state",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Instance", 1, conds(
				map[string]any{"type": "ACK.ResourceSynced", "status": "True"})),
			want: result{false, "instance state is unknown, not running"},
		},
		{
			name: "ack instance running",
			obj: object("ec2.services.k8s.aws/v1alpha1", "Instance", 1, map[string]any{
				"state":      map[string]any{"name": "running", "code": int64(16)},
				"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": "True"}},
			}),
			want: result{true, "status True"},
		},
		{
			name: "unknown group",
			obj:  object("example.com/v1", "Machine", 1, conds(map[string]any{"type": "Ready", "status": "True"})),
			want: result{false, `no readiness convention known for API group "example.com"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ready, message := Ready(tc.obj)
			if diff := cmp.Diff(tc.want, result{ready, message}); diff != "" {
				t.Errorf("Ready (-want +got):\n%s", diff)
			}
		})
	}
}
