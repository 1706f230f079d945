package webhook

import (
	"strings"

	computev1alpha1 "github.com/meridian-dev/meridian/api/compute/v1alpha1"
	"github.com/meridian-dev/meridian/internal/policy"
	"github.com/meridian-dev/meridian/internal/vmrender"
)

// RenderingPolicy names the step that removes the regions whose provider
// could not render the VM's objects at its start (for example Azure, which
// creates no Linux VM without an SSH key): a VM is never admitted to a
// region where it would fail at its start.
const RenderingPolicy = "rendering"

// defaultImage is the API's default of spec.image, which the API server
// has applied before admission; the Planner applies it when called directly.
const defaultImage = "ubuntu-24.04"

// renderable removes from dec the candidates whose provider cannot render
// vm, as a last step of the explanation, each with the renderer's reason.
func renderable(vm *computev1alpha1.CloudVM, dec policy.VMDecision) policy.VMDecision {
	name := vm.Name
	if name == "" {
		// The API server appends five characters to generateName.
		name = vm.GenerateName + "xxxxx"
	}
	image := string(vm.Spec.Image)
	if image == "" {
		image = defaultImage
	}
	in := vmrender.Input{
		Name:         name,
		Namespace:    vm.Namespace,
		Image:        image,
		SSHPublicKey: vm.Spec.SSHPublicKey,
		Labels:       map[string]string{computev1alpha1.LabelCloudVM: name},
	}
	if vm.Spec.CredentialsSecretRef != nil {
		in.CredentialsSecretName = vm.Spec.CredentialsSecretRef.Name
	}
	kept := dec.Candidates[:0:0]
	var left []string
	for _, c := range dec.Candidates {
		in.Provider, in.Region, in.InstanceType = c.Provider, c.Region, c.InstanceType
		if err := vmrender.Validate(in); err != nil {
			why := strings.TrimPrefix(err.Error(), vmrender.ErrInvalidInput.Error()+": ")
			dec.Removed = append(dec.Removed, policy.VMRemoval{Provider: c.Provider, Region: c.Region, Policy: RenderingPolicy,
				Reason: c.Provider + " cannot create this VM: " + why})
			continue
		}
		kept = append(kept, c)
		left = append(left, c.Provider+"/"+c.Region)
	}
	dec.Candidates = kept
	dec.Steps = append(dec.Steps, policy.VMStep{Policy: RenderingPolicy, Left: left})
	return dec
}
