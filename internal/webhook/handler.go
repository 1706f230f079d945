package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
)

// CloudVMPath is where the CloudVM webhook is served; the generated
// MutatingWebhookConfiguration (config/webhook) calls it.
const CloudVMPath = "/mutate-compute-meridian-dev-v1alpha1-cloudvm"

// The webhook's configuration: every CREATE and UPDATE of a CloudVM (not
// its status) goes through it; the API server refuses the request when the
// webhook cannot answer (failurePolicy Fail), so no VM exists without a
// decision while the webhook is installed; its one side effect, the carbon
// scheduler's in-memory reservation, is skipped on a dry run, which is
// decided too (sideEffects NoneOnDryRun); 5 s is far above an in-memory decision and far
// under the API server's 30 s limit.
//
// +kubebuilder:webhook:path=/mutate-compute-meridian-dev-v1alpha1-cloudvm,mutating=true,failurePolicy=fail,sideEffects=NoneOnDryRun,groups=compute.meridian.dev,resources=cloudvms,verbs=create;update,versions=v1alpha1,name=cloudvm.compute.meridian.dev,admissionReviewVersions=v1,timeoutSeconds=5,reinvocationPolicy=Never

// CloudVMHandler is the CloudVM mutating webhook: it decodes the
// AdmissionReview, runs the Planner at the time of the request and patches
// spec.schedule, or denies the request with the Planner's message.
type CloudVMHandler struct {
	planner Planner
	decoder admission.Decoder
	now     func() time.Time
}

var _ admission.Handler = &CloudVMHandler{}

// NewCloudVMHandler returns the handler for planner; now is its clock
// (time.Now when nil).
func NewCloudVMHandler(scheme *runtime.Scheme, planner Planner, now func() time.Time) *CloudVMHandler {
	if now == nil {
		now = time.Now
	}
	return &CloudVMHandler{planner: planner, decoder: admission.NewDecoder(scheme), now: now}
}

// Webhook returns the handler as an http.Handler that speaks AdmissionReview.
func (h *CloudVMHandler) Webhook() *webhook.Admission {
	return &webhook.Admission{Handler: h}
}

// Register serves the handler at CloudVMPath on srv.
func (h *CloudVMHandler) Register(srv webhook.Server) {
	srv.Register(CloudVMPath, h.Webhook())
}

// Handle implements admission.Handler.
func (h *CloudVMHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Kind.Group != computev1alpha1.GroupVersion.Group || req.Kind.Kind != "CloudVM" {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("the CloudVM webhook got a %s %s: it decides on %s CloudVMs only", req.Kind.Group, req.Kind.Kind, computev1alpha1.GroupVersion.Group))
	}
	if req.SubResource != "" {
		return admission.Allowed("subresources are not decided on")
	}
	if len(req.Object.Raw) == 0 {
		return admission.Errored(http.StatusBadRequest, errors.New("the AdmissionReview has no object: request.object is required on CREATE and UPDATE"))
	}
	vm := &computev1alpha1.CloudVM{}
	if err := h.decoder.DecodeRaw(req.Object, vm); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("request.object is not a CloudVM: %w", err))
	}
	if vm.Namespace == "" {
		vm.Namespace = req.Namespace
	}
	if vm.Name == "" {
		vm.Name = req.Name
	}
	var old *computev1alpha1.CloudVM
	if req.Operation == admissionv1.Update {
		if len(req.OldObject.Raw) == 0 {
			return admission.Errored(http.StatusBadRequest, errors.New("the AdmissionReview of an UPDATE has no request.oldObject"))
		}
		old = &computev1alpha1.CloudVM{}
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("request.oldObject is not a CloudVM: %w", err))
		}
	}

	logger := log.FromContext(ctx).WithValues("cloudVM", klog.KRef(vm.Namespace, vm.Name), "operation", req.Operation)
	planner := h.planner
	if req.DryRun != nil && *req.DryRun {
		// A dry run is decided as the real request would be, and reserves
		// nothing (the webhook's sideEffects are NoneOnDryRun).
		planner = planner.previewing()
	}
	res, err := planner.Admit(ctx, req.Operation, vm, old, h.now())
	if err != nil {
		logger.Info("CloudVM denied", "reason", err.Error())
		return admission.Denied(err.Error())
	}
	resp := admission.Patched("", schedulePatch(vm.Spec.Schedule != nil, res.Schedule)...)
	if s := res.Schedule; s != nil && res.Outcome != Kept {
		d := s.Decision
		logger.Info("CloudVM scheduled", "outcome", res.Outcome, "provider", d.Provider, "region", d.Region,
			"instanceType", d.InstanceType, "start", d.Start.UTC().Format(timeLayout), "fallback", d.Fallback, "decisionID", d.DecisionID)
		resp.Result = &metav1.Status{Code: http.StatusOK}
		resp.Result.Message = fmt.Sprintf("%s: %s/%s (%s) from %s to %s", res.Outcome, d.Provider, d.Region, d.InstanceType,
			d.Start.UTC().Format(timeLayout), d.End.UTC().Format(timeLayout))
		if d.Fallback != "" {
			resp.Warnings = append(resp.Warnings, "CloudVM "+key(vm)+": "+d.Fallback)
		}
	}
	return resp
}

// schedulePatch is the JSON patch that sets spec.schedule to s (removes
// it when s is nil and the object has one), leaving every other field as the
// user wrote it: re-encoding the typed object would rewrite quantities
// ("1.5" as "1500m") and durations, and diffing two encodings of the whole
// object costs more than the decision. "add" replaces a member that exists
// (RFC 6902, 4.1). The object has a spec: it decoded, and the decision
// needed its cpu, memory and duration.
func schedulePatch(has bool, s *computev1alpha1.CloudVMSchedule) []jsonpatch.JsonPatchOperation {
	switch {
	case s != nil:
		return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", "/spec/schedule", s)}
	case has:
		return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("remove", "/spec/schedule", nil)}
	}
	return nil
}
