package join

import (
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/probe"
)

// GuardName names the member's admission policy and its binding.
const GuardName = "meridian-member-guard"

// guardObjects are a ValidatingAdmissionPolicy and its binding that bound
// what the controller's ServiceAccount may do in the member beyond RBAC,
// which cannot say it: no write into the member's system namespaces nor
// into meridian join's own (but the prober's targets, which the controller
// keeps there), and no ServiceAccount token Secret anywhere (one would hand
// out a long-lived token of any ServiceAccount the controller names).
func guardObjects(o Options) []client.Object {
	l := labels(o.Name)
	user := fmt.Sprintf("system:serviceaccount:%s:%s", o.Namespace, ServiceAccountName)
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: GuardName, Labels: l},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "meridian-controller",
				Expression: fmt.Sprintf("request.userInfo.username == %q", user),
			}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: fmt.Sprintf("!(request.namespace in ['kube-system', 'kube-public', 'kube-node-lease', %q]) || "+
					"(request.namespace == %q && request.resource.resource == 'configmaps' && request.name == %q)",
					o.Namespace, o.Namespace, probe.TargetsConfigMap),
				Message: fmt.Sprintf("Meridian's controller does not write into the member's system namespaces nor into %s", o.Namespace),
			}, {
				Expression: "request.operation == 'DELETE' || request.resource.resource != 'secrets' || !has(object.type) || object.type != 'kubernetes.io/service-account-token'",
				Message:    "Meridian's controller does not make ServiceAccount token Secrets",
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: GuardName, Labels: l},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        GuardName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return []client.Object{policy, binding}
}
