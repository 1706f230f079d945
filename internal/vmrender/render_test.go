package vmrender

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/charts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const testKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForGoldenFilesOnly0000000000000000 user@example"

// baseInputs are one valid Input per provider.
var baseInputs = map[string]Input{
	"azure": {Name: "vm1", Namespace: "team-a", Provider: "azure", Region: "westeurope", InstanceType: "Standard_D2s_v5", SSHPublicKey: testKey, CredentialsSecretName: "aso-credential", Labels: map[string]string{"compute.meridian.dev/cloudvm": "vm1"}},
	"gcp":   {Name: "vm1", Namespace: "team-a", Provider: "gcp", Region: "europe-west4", InstanceType: "e2-standard-2", SSHPublicKey: testKey, Labels: map[string]string{"compute.meridian.dev/cloudvm": "vm1"}},
	"aws":   {Name: "vm1", Namespace: "team-a", Provider: "aws", Region: "eu-west-1", InstanceType: "m6i.large", SSHPublicKey: testKey, Labels: map[string]string{"compute.meridian.dev/cloudvm": "vm1"}},
}

// renderCase is one Input whose rendering is kept as a golden file.
type renderCase struct {
	name string
	in   Input
}

// renderCases are every provider with every image family, and the
// variations that change what is rendered: Arm sizes, a GCP region
// without zone a, no SSH key, no credential.
func renderCases() []renderCase {
	var cases []renderCase
	for _, provider := range []string{"azure", "gcp", "aws"} {
		for _, image := range []string{"ubuntu-24.04", "ubuntu-22.04", "debian-12"} {
			in := baseInputs[provider]
			in.Image = image
			cases = append(cases, renderCase{provider + "-" + image, in})
		}
	}
	with := func(name, provider string, change func(*Input)) {
		in := baseInputs[provider]
		in.Image = "ubuntu-24.04"
		change(&in)
		cases = append(cases, renderCase{name, in})
	}
	with("azure-arm64", "azure", func(in *Input) { in.InstanceType = "Standard_D2ps_v5" })
	with("azure-no-credential", "azure", func(in *Input) { in.CredentialsSecretName = "" })
	with("gcp-arm64", "gcp", func(in *Input) { in.InstanceType = "t2a-standard-2" })
	with("gcp-europe-west1", "gcp", func(in *Input) { in.Region = "europe-west1" })
	with("gcp-no-ssh-key", "gcp", func(in *Input) { in.SSHPublicKey = "" })
	with("aws-arm64", "aws", func(in *Input) { in.InstanceType = "m7g.large" })
	with("aws-no-ssh-key", "aws", func(in *Input) { in.SSHPublicKey = "" })
	return cases
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Render(tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got := manifest(t, objs)
			path := filepath.Join("testdata", "golden", tc.name+".yaml")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("failed to read golden file (run with -update to write it): %v", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render(%s) differs from %s (-want +got):\n%s", tc.name, path, diff)
			}
		})
	}
}

// TestRenderObjects checks what every rendering must hold, whatever the
// golden files say: the namespace, the labels, and references that point
// at objects of the same rendering.
func TestRenderObjects(t *testing.T) {
	wantKinds := map[string][]string{
		"azure": {"ResourceGroup", "VirtualNetwork", "VirtualNetworksSubnet", "NetworkInterface", "VirtualMachine"},
		"gcp":   {"ComputeNetwork", "ComputeSubnetwork", "ComputeInstance"},
		"aws":   {"VPC", "Subnet", "Instance"},
	}
	for _, tc := range renderCases() {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Render(tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			again, err := Render(tc.in)
			if err != nil {
				t.Fatalf("second Render: %v", err)
			}
			if diff := cmp.Diff(manifest(t, objs), manifest(t, again)); diff != "" {
				t.Errorf("two renderings differ (-first +second):\n%s", diff)
			}
			var kinds []string
			names := map[string]bool{}
			for _, o := range objs {
				kinds = append(kinds, o.GetKind())
				names[o.GetKind()+"/"+o.GetName()] = true
				if o.GetNamespace() != tc.in.Namespace {
					t.Errorf("%s %s is in namespace %q, want %q", o.GetKind(), o.GetName(), o.GetNamespace(), tc.in.Namespace)
				}
				for k, v := range tc.in.Labels {
					if o.GetLabels()[k] != v {
						t.Errorf("%s %s has label %s=%q, want %q", o.GetKind(), o.GetName(), k, o.GetLabels()[k], v)
					}
				}
				cred := o.GetAnnotations()["serviceoperator.azure.com/credential-from"]
				if tc.in.Provider == "azure" && cred != tc.in.CredentialsSecretName {
					t.Errorf("%s %s has credential-from %q, want %q", o.GetKind(), o.GetName(), cred, tc.in.CredentialsSecretName)
				}
			}
			if diff := cmp.Diff(wantKinds[tc.in.Provider], kinds); diff != "" {
				t.Errorf("kinds in order (-want +got):\n%s", diff)
			}
			// Every reference to a sibling names one that was rendered
			// before it.
			for _, ref := range references(objs) {
				if !names[ref] {
					t.Errorf("reference to %s, which was not rendered", ref)
				}
			}
		})
	}
}

// references returns kind/name of every object the rendered objects name
// through the operators' reference fields.
func references(objs []*unstructured.Unstructured) []string {
	var refs []string
	ownerKind := map[string]string{"VirtualNetwork": "ResourceGroup", "NetworkInterface": "ResourceGroup", "VirtualMachine": "ResourceGroup", "VirtualNetworksSubnet": "VirtualNetwork"}
	for _, o := range objs {
		if owner, ok, _ := unstructured.NestedString(o.Object, "spec", "owner", "name"); ok {
			refs = append(refs, ownerKind[o.GetKind()]+"/"+owner)
		}
		switch o.GetKind() {
		case "NetworkInterface":
			configs, _, _ := unstructured.NestedSlice(o.Object, "spec", "ipConfigurations")
			for _, c := range configs {
				name, _, _ := unstructured.NestedString(c.(map[string]any), "subnet", "reference", "name")
				refs = append(refs, "VirtualNetworksSubnet/"+name)
			}
		case "VirtualMachine":
			nics, _, _ := unstructured.NestedSlice(o.Object, "spec", "networkProfile", "networkInterfaces")
			for _, n := range nics {
				name, _, _ := unstructured.NestedString(n.(map[string]any), "reference", "name")
				refs = append(refs, "NetworkInterface/"+name)
			}
		case "ComputeSubnetwork":
			name, _, _ := unstructured.NestedString(o.Object, "spec", "networkRef", "name")
			refs = append(refs, "ComputeNetwork/"+name)
		case "ComputeInstance":
			nics, _, _ := unstructured.NestedSlice(o.Object, "spec", "networkInterface")
			for _, n := range nics {
				name, _, _ := unstructured.NestedString(n.(map[string]any), "subnetworkRef", "name")
				refs = append(refs, "ComputeSubnetwork/"+name)
			}
		case "Subnet":
			name, _, _ := unstructured.NestedString(o.Object, "spec", "vpcRef", "from", "name")
			refs = append(refs, "VPC/"+name)
		case "Instance":
			name, _, _ := unstructured.NestedString(o.Object, "spec", "subnetRef", "from", "name")
			refs = append(refs, "Subnet/"+name)
		}
	}
	return refs
}

// manifest is objs as one YAML stream.
func manifest(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatalf("failed to marshal %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String()
}

// TestChartUsesNoLookup keeps Helm's lookup out of the chart: offline it
// returns nothing, which is how the seed's AWS template lost its subnet.
func TestChartUsesNoLookup(t *testing.T) {
	lookup := regexp.MustCompile(`\blookup\b`)
	err := fs.WalkDir(charts.CloudVM, "cloudvm/templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(charts.CloudVM, path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "{{") && lookup.MatchString(line) {
				t.Errorf("%s:%d calls lookup: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChartSchema renders the chart directly with values Render would
// never pass: values.schema.json refuses them, as it does for helm
// template.
func TestChartSchema(t *testing.T) {
	c, err := cloudVMChart()
	if err != nil {
		t.Fatal(err)
	}
	valid := map[string]any{"provider": "aws", "region": "eu-west-1", "instanceType": "m6i.large", "image": "debian-12"}
	tests := []struct {
		name    string
		change  map[string]any
		wantErr string
	}{
		{name: "valid", change: map[string]any{}},
		{name: "unknown provider", change: map[string]any{"provider": "ibm"}, wantErr: "/provider"},
		{name: "unknown image", change: map[string]any{"image": "windows-2022"}, wantErr: "/image"},
		{name: "unknown value", change: map[string]any{"zone": "a"}, wantErr: "zone"},
		{name: "bad network", change: map[string]any{"network": map[string]any{"cidr": "ten", "subnetCidr": "10.0.1.0/24"}}, wantErr: "/network/cidr"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vals := map[string]any{}
			for k, v := range valid {
				vals[k] = v
			}
			for k, v := range tc.change {
				vals[k] = v
			}
			_, err := renderChart(c, "vm1", "team-a", vals)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("renderChart: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("renderChart error = %v, want one naming %q", err, tc.wantErr)
			}
		})
	}
}

func TestRenderInvalid(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		change  func(*Input)
		wantErr string
	}{
		{"unknown provider", "aws", func(in *Input) { in.Provider = "ibm" }, `provider "ibm": must be one of "aws", "azure", "gcp"`},
		{"empty provider", "aws", func(in *Input) { in.Provider = "" }, `provider "": must be one of`},
		{"name not a DNS label", "aws", func(in *Input) { in.Name = "VM_1" }, `name "VM_1": must be a DNS label`},
		{"empty name", "aws", func(in *Input) { in.Name = "" }, `name "": must be a DNS label`},
		{"name too long for azure", "azure", func(in *Input) { in.Name = strings.Repeat("a", 60) }, "must be at most 59 characters on azure: Azure virtual network names"},
		{"name fits azure", "azure", func(in *Input) { in.Name = strings.Repeat("a", 59) }, ""},
		{"azure resource group too long", "azure", func(in *Input) { in.Name = strings.Repeat("a", 50); in.Namespace = strings.Repeat("n", 40) }, "resource group <namespace>-<name> would have 91"},
		{"name too long for gcp", "gcp", func(in *Input) { in.Name = strings.Repeat("a", 56) }, "must be at most 55 characters on gcp"},
		{"name fits gcp", "gcp", func(in *Input) { in.Name = strings.Repeat("a", 55) }, ""},
		{"gcp name begins with a digit", "gcp", func(in *Input) { in.Name = "1vm" }, `name "1vm": must be a name beginning with a letter on gcp`},
		{"aws name begins with a digit", "aws", func(in *Input) { in.Name = "1vm" }, ""},
		{"bad namespace", "aws", func(in *Input) { in.Namespace = "Team A" }, `namespace "Team A": must be a namespace name`},
		{"azure region of gcp", "azure", func(in *Input) { in.Region = "europe-west4" }, `region "europe-west4": must be a region of azure such as "westeurope"`},
		{"gcp region of aws", "gcp", func(in *Input) { in.Region = "eu-west-1" }, `region "eu-west-1": must be a region of gcp such as "europe-west4"`},
		{"aws region of azure", "aws", func(in *Input) { in.Region = "westeurope" }, `region "westeurope": must be a region of aws such as "eu-west-1"`},
		{"aws gov region", "aws", func(in *Input) { in.Region = "us-gov-west-1" }, ""},
		{"empty region", "aws", func(in *Input) { in.Region = "" }, `region "": must be`},
		{"azure size of aws", "azure", func(in *Input) { in.InstanceType = "m6i.large" }, `instanceType "m6i.large": must be an instance type of azure such as "Standard_D2s_v5"`},
		{"gcp size of azure", "gcp", func(in *Input) { in.InstanceType = "Standard_D2s_v5" }, `instanceType "Standard_D2s_v5": must be an instance type of gcp`},
		{"aws size of gcp", "aws", func(in *Input) { in.InstanceType = "e2-standard-2" }, `instanceType "e2-standard-2": must be an instance type of aws such as "m6i.large"`},
		{"unknown image", "aws", func(in *Input) { in.Image = "windows-2022" }, `image "windows-2022": must be one of "debian-12", "ubuntu-22.04", "ubuntu-24.04"`},
		{"empty image", "gcp", func(in *Input) { in.Image = "" }, `image "": must be one of`},
		{"azure without ssh key", "azure", func(in *Input) { in.SSHPublicKey = "" }, "sshPublicKey \"\": must be a public key such as \"ssh-ed25519 AAAA...\": azure creates no Linux VM without one"},
		{"ssh key of two lines", "aws", func(in *Input) { in.SSHPublicKey = testKey + "\n" + testKey }, "sshPublicKey"},
		{"bad secret name", "azure", func(in *Input) { in.CredentialsSecretName = "My Secret" }, `credentialsSecretName "My Secret": must be a Secret name`},
		{"bad label key", "aws", func(in *Input) { in.Labels = map[string]string{"bad key": "x"} }, `labels "bad key": must be a label key`},
		{"bad label value", "aws", func(in *Input) { in.Labels = map[string]string{"team": "a b"} }, `labels[team] "a b": must be a label value`},
		{"gcp unprefixed upper-case key", "gcp", func(in *Input) { in.Labels = map[string]string{"Team": "a"} }, `labels "Team": must be a key with a prefix`},
		{"gcp unprefixed value with a dot", "gcp", func(in *Input) { in.Labels = map[string]string{"team": "a.b"} }, `labels[team] "a.b": must be a GCP label value`},
		{"gcp prefixed value with a dot", "gcp", func(in *Input) { in.Labels = map[string]string{"example.com/team": "A.b"} }, ""},
		{"aws unprefixed value with a dot", "aws", func(in *Input) { in.Labels = map[string]string{"team": "a.b"} }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInputs[tc.base]
			in.Image = "ubuntu-24.04"
			in.Labels = nil
			tc.change(&in)
			_, err := Render(in)
			// The webhook refuses with Validate what Render would refuse at
			// the start: the two must agree on every input.
			if verr := Validate(in); (verr == nil) != (err == nil) {
				t.Errorf("Validate error = %v, Render error = %v; want both or neither", verr, err)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Render succeeded, want an error containing %q", tc.wantErr)
			}
			if !errors.Is(err, ErrInvalidInput) {
				t.Errorf("Render error %v does not wrap ErrInvalidInput", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Render error = %q, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	for _, provider := range []string{"azure", "gcp", "aws"} {
		in := baseInputs[provider]
		in.Image = "ubuntu-24.04"
		b.Run(provider, func(b *testing.B) {
			for b.Loop() {
				if _, err := Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
