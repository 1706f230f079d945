package api_test

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/testenv"
)

func TestExamplesApplyAndReadBackUnchanged(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client

	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	// Walkthroughs keep their manifests in a folder each.
	walkthroughs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range walkthroughs {
		// Simulator scenarios and testbed profiles are not API objects;
		// their own packages' tests read them.
		if dir := filepath.Base(filepath.Dir(f)); dir != "scenarios" && dir != "testbed" {
			files = append(files, f)
		}
	}
	// cluster.yaml creates the meridian-system namespace the others use.
	for i, f := range files {
		if filepath.Base(f) == "cluster.yaml" {
			files[0], files[i] = files[i], files[0]
		}
	}
	for _, file := range files {
		name, _ := filepath.Rel(filepath.Join("..", "..", "examples"), file)
		t.Run(name, func(t *testing.T) {
			for _, obj := range testenv.ReadManifests(t, file) {
				if obj.GetNamespace() == "" && obj.GetKind() != "Namespace" && obj.GetKind() != "Cluster" && obj.GetKind() != "MultiClusterRescheduler" {
					obj.SetNamespace("default")
				}
				if ns := obj.GetNamespace(); ns != "" {
					err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
					if err != nil && !apierrors.IsAlreadyExists(err) {
						t.Fatal(err)
					}
				}
				want := obj.DeepCopy()
				if err := c.Create(t.Context(), obj, client.FieldValidation("Strict")); err != nil {
					t.Fatalf("%s %s was refused: %v", obj.GetKind(), obj.GetName(), err)
				}
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(want.GroupVersionKind())
				if err := c.Get(t.Context(), client.ObjectKeyFromObject(want), got); err != nil {
					t.Fatal(err)
				}
				writeOnlyToData(want)
				// The server adds defaults and metadata; what the example
				// wrote must come back as written.
				if diff := cmp.Diff(want.Object, subset(want.Object, got.Object)); diff != "" {
					t.Errorf("%s %s did not read back as written (-written +read):\n%s", want.GetKind(), want.GetName(), diff)
				}
			}
		})
	}
}

// writeOnlyToData turns a Secret's stringData into the data the server
// stores.
func writeOnlyToData(u *unstructured.Unstructured) {
	if u.GetKind() != "Secret" {
		return
	}
	sd, _, _ := unstructured.NestedStringMap(u.Object, "stringData")
	if len(sd) == 0 {
		return
	}
	data := map[string]any{}
	for k, v := range sd {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	unstructured.RemoveNestedField(u.Object, "stringData")
	u.Object["data"] = data
}

// subset returns the parts of got at the paths that want has, so that a
// field the server dropped or changed shows in a diff against want.
func subset(want, got any) any {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := map[string]any{}
		for k, wv := range w {
			if gv, ok := g[k]; ok {
				out[k] = subset(wv, gv)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return got
		}
		out := make([]any, len(w))
		for i := range w {
			out[i] = subset(w[i], g[i])
		}
		return out
	default:
		return got
	}
}

func exampleObject(t *testing.T, file, kind string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range testenv.ReadManifests(t, filepath.Join("..", "..", "examples", file)) {
		if o.GetKind() == kind {
			return o
		}
	}
	t.Fatalf("no %s in examples/%s", kind, file)
	return nil
}

// flavor is the i-th of a CloudProvisioner's spec.flavors, to change in
// place.
func flavor(t *testing.T, u *unstructured.Unstructured, i int) map[string]any {
	t.Helper()
	spec, _ := u.Object["spec"].(map[string]any)
	flavors, _ := spec["flavors"].([]any)
	if i >= len(flavors) {
		t.Fatalf("no flavors[%d] in %s", i, u.GetName())
	}
	return flavors[i].(map[string]any)
}

func set(t *testing.T, u *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidObjectsAreRefusedNamingTheField(t *testing.T) {
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client

	mcd := func() *unstructured.Unstructured {
		return exampleObject(t, "mcd-cluster-affinity.yaml", "MultiClusterDeployment")
	}
	cluster := func() *unstructured.Unstructured { return exampleObject(t, "cluster.yaml", "Cluster") }
	hpa := func() *unstructured.Unstructured {
		return exampleObject(t, "mchpa.yaml", "MultiClusterHorizontalPodAutoscaler")
	}
	cp := func() *unstructured.Unstructured {
		return exampleObject(t, "cloudprovisioner.yaml", "CloudProvisioner")
	}
	ns := &corev1.Namespace{}
	ns.Name = "meridian-system"
	if err := c.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	mcj := func() *unstructured.Unstructured { return exampleObject(t, "mcj.yaml", "MultiClusterJob") }
	vm := func() *unstructured.Unstructured { return exampleObject(t, "cloudvm.yaml", "CloudVM") }
	pinned := func() *unstructured.Unstructured { return exampleObject(t, "cloudvm-pinned.yaml", "CloudVM") }

	tests := []struct {
		name string
		obj  func() *unstructured.Unstructured
		// want are substrings of the API server's message: the field path
		// and what is wrong with it.
		want []string
	}{{
		name: "negative replicas",
		obj:  func() *unstructured.Unstructured { u := mcd(); set(t, u, int64(-1), "spec", "replicas"); return u },
		want: []string{"spec.replicas", "greater than or equal to 0"},
	}, {
		name: "unknown placement policy",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, "Nearest", "spec", "placement", "policy")
			return u
		},
		want: []string{"spec.placement.policy", `Unsupported value: "Nearest"`, `"ClusterAffinity"`},
	}, {
		name: "malformed CPU quantity",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			_ = unstructured.SetNestedField(containers[0].(map[string]any), "two cores", "resources", "requests", "cpu")
			set(t, u, containers, "spec", "template", "spec", "containers")
			return u
		},
		want: []string{"spec.template.spec.containers[0].resources.requests.cpu", "two cores"},
	}, {
		name: "substitution policy without substitution",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, false, "spec", "placement", "substitution", "enabled")
			return u
		},
		want: []string{"spec.placement.substitution.policy", "substitution.enabled is false"},
	}, {
		name: "bursting policy without bursting",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, false, "spec", "placement", "bursting", "enabled")
			return u
		},
		want: []string{"spec.placement.bursting.policy", "bursting.enabled is false"},
	}, {
		name: "cluster affinity without locations",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			unstructured.RemoveNestedField(u.Object, "spec", "placement", "locations")
			return u
		},
		want: []string{"spec.placement.locations", "ClusterAffinity needs at least one cluster"},
	}, {
		name: "location that is not a cluster name",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, []any{"Cluster_2"}, "spec", "placement", "locations")
			return u
		},
		want: []string{"spec.placement.locations[0]", "should match"},
	}, {
		name: "autoscaler min replicas above max",
		obj: func() *unstructured.Unstructured {
			u := hpa()
			set(t, u, int64(200), "spec", "minReplicas")
			return u
		},
		want: []string{"spec.minReplicas", "less than or equal to maxReplicas"},
	}, {
		name: "autoscaler target that is not a MultiClusterDeployment",
		obj: func() *unstructured.Unstructured {
			u := hpa()
			set(t, u, "Deployment", "spec", "scaleTargetRef", "kind")
			return u
		},
		want: []string{"spec.scaleTargetRef.kind", "must be MultiClusterDeployment"},
	}, {
		name: "autoscaler cool-down that is not a duration",
		obj: func() *unstructured.Unstructured {
			u := hpa()
			set(t, u, "ten minutes", "spec", "scaleDownCooldown")
			return u
		},
		want: []string{"spec.scaleDownCooldown", "duration"},
	}, {
		name: "inline cloud credentials",
		obj: func() *unstructured.Unstructured {
			u := cp()
			set(t, u, "xxxxxxxxxxxxxx", "spec", "credentials")
			return u
		},
		want: []string{`unknown field "spec.credentials"`},
	}, {
		name: "real cloud without credentials",
		obj: func() *unstructured.Unstructured {
			u := cp()
			unstructured.RemoveNestedField(u.Object, "spec", "credentialsSecretRef")
			return u
		},
		want: []string{"spec.credentialsSecretRef", "required for a real cloud"},
	}, {
		name: "cloud min nodes above max",
		obj: func() *unstructured.Unstructured {
			u := cp()
			set(t, u, int64(20), "spec", "minNodes")
			return u
		},
		want: []string{"spec.minNodes", "less than or equal to maxNodes"},
	}, {
		name: "unknown cloud provider",
		obj: func() *unstructured.Unstructured {
			u := cp()
			set(t, u, "DigitalOcean", "spec", "provider")
			return u
		},
		want: []string{"spec.provider", `Unsupported value: "DigitalOcean"`},
	}, {
		name: "flavor price without its currency, as written before the money shape",
		obj: func() *unstructured.Unstructured {
			u := cp()
			flavor(t, u, 0)["pricePerHour"] = "0.16"
			return u
		},
		want: []string{"spec.flavors[0].pricePerHour", "must be of type object"},
	}, {
		name: "flavor price without a currency",
		obj: func() *unstructured.Unstructured {
			u := cp()
			flavor(t, u, 0)["pricePerHour"] = map[string]any{"amount": "0.16"}
			return u
		},
		want: []string{"spec.flavors[0].pricePerHour.currency", "Required value"},
	}, {
		name: "negative flavor price",
		obj: func() *unstructured.Unstructured {
			u := cp()
			flavor(t, u, 0)["pricePerHour"] = map[string]any{"amount": "-0.16", "currency": "USD"}
			return u
		},
		want: []string{"spec.flavors[0].pricePerHour.amount", "must not be negative"},
	}, {
		name: "flavors priced in two currencies",
		obj: func() *unstructured.Unstructured {
			u := cp()
			flavor(t, u, 1)["pricePerHour"] = map[string]any{"amount": "0.30", "currency": "EUR"}
			return u
		},
		want: []string{"spec.flavors", "must be in one currency"},
	}, {
		name: "inline kubeconfig in a cluster",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "apiVersion: v1", "spec", "kubeconfig")
			return u
		},
		want: []string{`unknown field "spec.kubeconfig"`},
	}, {
		name: "cluster without kubeconfig reference",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			unstructured.RemoveNestedField(u.Object, "spec", "kubeconfigSecretRef")
			return u
		},
		want: []string{"spec.kubeconfigSecretRef", "Required value"},
	}, {
		name: "grid zone that is not an Electricity Maps zone",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "france", "spec", "gridZone")
			return u
		},
		want: []string{"spec.gridZone", "should match"},
	}, {
		name: "latitude out of range",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "95.5", "spec", "coordinates", "latitude")
			return u
		},
		want: []string{"spec.coordinates.latitude", "between -90 and 90"},
	}, {
		name: "longitude out of range",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "-180.5", "spec", "coordinates", "longitude")
			return u
		},
		want: []string{"spec.coordinates.longitude", "between -180 and 180"},
	}, {
		name: "latitude that is not a number",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "48N", "spec", "coordinates", "latitude")
			return u
		},
		want: []string{"spec.coordinates.latitude", "quantities must match"},
	}, {
		name: "cluster prices as written before the money shape",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "0.021", "spec", "prices", "cpuHour")
			return u
		},
		want: []string{"spec.prices.cpuHour", "must be of type object"},
	}, {
		name: "cluster prices in two currencies",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, map[string]any{"amount": "0.003", "currency": "USD"}, "spec", "prices", "memoryGiBHour")
			return u
		},
		want: []string{"spec.prices.memoryGiBHour.currency", "must be in one currency"},
	}, {
		name: "negative cluster price",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, "-0.021", "spec", "prices", "cpuHour", "amount")
			return u
		},
		want: []string{"spec.prices.cpuHour.amount", "must not be negative"},
	}, {
		name: "latency that is not a duration",
		obj: func() *unstructured.Unstructured {
			u := cluster()
			set(t, u, []any{map[string]any{"cluster": "cluster1", "rtt": "fast"}}, "spec", "latencies")
			return u
		},
		want: []string{"spec.latencies[0].rtt", "duration"},
	}, {
		name: "job whose pods restart always",
		obj: func() *unstructured.Unstructured {
			u := mcj()
			set(t, u, "Always", "spec", "template", "spec", "restartPolicy")
			return u
		},
		want: []string{"spec.template.spec.restartPolicy", "must be Never or OnFailure"},
	}, {
		name: "job deadline in seconds, as written before durations",
		obj: func() *unstructured.Unstructured {
			u := mcj()
			set(t, u, int64(600), "spec", "activeDeadlineSeconds")
			return u
		},
		want: []string{`unknown field "spec.activeDeadlineSeconds"`},
	}, {
		name: "job deadline below a second",
		obj: func() *unstructured.Unstructured {
			u := mcj()
			set(t, u, "0s", "spec", "activeDeadline")
			return u
		},
		want: []string{"spec.activeDeadline", "at least 1s"},
	}, {
		name: "job deadline not in whole seconds",
		obj: func() *unstructured.Unstructured {
			u := mcj()
			set(t, u, "1500ms", "spec", "activeDeadline")
			return u
		},
		want: []string{"spec.activeDeadline", "should match"},
	}, {
		name: "min ready in seconds, as written before durations",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, int64(30), "spec", "minReadySeconds")
			return u
		},
		want: []string{`unknown field "spec.minReadySeconds"`},
	}, {
		name: "min ready not in whole seconds",
		obj: func() *unstructured.Unstructured {
			u := mcd()
			set(t, u, "2.5s", "spec", "minReady")
			return u
		},
		want: []string{"spec.minReady", "should match"},
	}, {
		name: "VM with zero CPU",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "0", "spec", "cpu"); return u },
		want: []string{"spec.cpu", "cpu must be greater than zero"},
	}, {
		name: "VM with negative CPU",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "-500m", "spec", "cpu"); return u },
		want: []string{"spec.cpu", "cpu must be greater than zero"},
	}, {
		name: "VM with zero memory",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "0", "spec", "memory"); return u },
		want: []string{"spec.memory", "memory must be greater than zero"},
	}, {
		name: "VM with negative memory",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "-1Gi", "spec", "memory"); return u },
		want: []string{"spec.memory", "memory must be greater than zero"},
	}, {
		name: "VM with zero duration",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "0s", "spec", "duration"); return u },
		want: []string{"spec.duration", "duration must be greater than zero"},
	}, {
		name: "VM duration that is not a duration",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "three hours", "spec", "duration"); return u },
		want: []string{"spec.duration", "should match"},
	}, {
		name: "VM pinned start plus duration after the deadline",
		obj: func() *unstructured.Unstructured {
			u := pinned()
			set(t, u, "2027-01-15T05:00:00Z", "spec", "pin", "start")
			return u
		},
		want: []string{"spec.deadline", "pin.start plus duration must not be after the deadline"},
	}, {
		name: "VM pinned region without a pinned provider",
		obj: func() *unstructured.Unstructured {
			u := pinned()
			unstructured.RemoveNestedField(u.Object, "spec", "pin", "provider")
			return u
		},
		want: []string{"spec.pin.region", "pin.region needs pin.provider"},
	}, {
		name: "VM pinned provider not among its providers",
		obj: func() *unstructured.Unstructured {
			u := pinned()
			set(t, u, "azure", "spec", "pin", "provider")
			return u
		},
		want: []string{"spec.pin.provider", "pin.provider must be one of providers"},
	}, {
		name: "VM unknown provider",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, []any{"ibm"}, "spec", "providers"); return u },
		want: []string{"spec.providers[0]", `Unsupported value: "ibm"`, `"azure"`},
	}, {
		name: "VM unknown residency",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "US", "spec", "residency"); return u },
		want: []string{"spec.residency", `Unsupported value: "US"`, `"EU"`},
	}, {
		name: "VM unknown image",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "windows-2022", "spec", "image"); return u },
		want: []string{"spec.image", `Unsupported value: "windows-2022"`, `"ubuntu-24.04"`},
	}, {
		name: "VM with inline cloud credentials",
		obj:  func() *unstructured.Unstructured { u := vm(); set(t, u, "secret", "spec", "credentials"); return u },
		want: []string{`unknown field "spec.credentials"`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj()
			if obj.GetNamespace() == "" && obj.GetKind() != "Cluster" {
				obj.SetNamespace("default")
			}
			err := c.Create(t.Context(), obj, client.FieldValidation("Strict"))
			if err == nil {
				t.Fatalf("%s was accepted, want it refused", tc.name)
			}
			t.Logf("refused: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}
