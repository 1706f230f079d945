package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// ProbeComponent is a member's latency prober (meridian probe), as Down,
// status and logs name it.
const ProbeComponent = "meridian-probe"

// StepProbes: every member runs a latency prober, behind the network that
// delays probes by the profile's latencies.
const StepProbes = "probes"

// probeInterval is how often the testbed's probers measure.
const probeInterval = 5 * time.Second

// sourceAddress is the loopback address a member's prober sends from, by
// which the network knows where a probe comes from.
func sourceAddress(index int) string { return fmt.Sprintf("127.0.%d.1", index) }

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// networkRoutes are, for every member, a proxy in front of its prober that
// delays a probe from another member by their declared round trip.
func networkRoutes(st *state, p *Profile) []Route {
	var routes []Route
	for _, b := range st.Clusters {
		if b.Role != RoleMember || b.Ports.ProbeFront == 0 {
			continue
		}
		r := Route{Listen: loopback(b.Ports.ProbeFront), Target: loopback(b.Ports.Probe), RTT: map[string]time.Duration{}}
		for _, a := range st.Clusters {
			if a.Role != RoleMember || a.Name == b.Name {
				continue
			}
			if rtt, ok := p.Latency(a.Name, b.Name); ok {
				r.RTT[sourceAddress(a.Index)] = rtt
			}
		}
		routes = append(routes, r)
	}
	return routes
}

// startProbes starts the network in the management cluster's folder and a
// prober in every member, as the ServiceAccount meridian-probe bound to
// the prober's generated role.
func startProbes(ctx context.Context, l layout, tb *Testbed, st *state, p *Profile, binary string, progress *progressFunc) error {
	began := time.Now()
	binary, err := meridianBinary(binary)
	if err != nil {
		return err
	}
	routes, err := json.Marshal(networkRoutes(st, p))
	if err != nil {
		return err
	}
	routesFile := filepath.Join(l.clusterDir(ManagementCluster), NetworkComponent+".routes.json")
	if err := os.WriteFile(routesFile, routes, 0o600); err != nil {
		return fmt.Errorf("failed to write the network's routes: %w", err)
	}
	if err := l.startMeridian(ManagementCluster, NetworkComponent, meridianRun{Binary: binary, Args: []string{"testbed", "network", "--routes", routesFile}}); err != nil {
		return err
	}
	for _, m := range tb.Members() {
		cs := st.cluster(m.Name)
		if cs == nil || cs.Ports.Probe == 0 {
			continue
		}
		cl, err := m.Client()
		if err != nil {
			return err
		}
		identity, err := componentIdentity(ctx, m, cl, "probe")
		if err != nil {
			return fmt.Errorf("cluster %q: %w", m.Name, err)
		}
		kubeconfig := l.componentKubeconfig(m.Name, ProbeComponent)
		if err := os.WriteFile(kubeconfig, identity, 0o600); err != nil {
			return fmt.Errorf("failed to write the prober kubeconfig of cluster %q: %w", m.Name, err)
		}
		args := []string{"probe",
			"--kubeconfig", kubeconfig,
			"--namespace", Namespace,
			"--listen", loopback(cs.Ports.Probe),
			"--advertise", loopback(cs.Ports.ProbeFront),
			"--source", sourceAddress(cs.Index),
			"--interval", probeInterval.String(),
		}
		if err := l.startMeridian(m.Name, ProbeComponent, meridianRun{Binary: binary, Args: args}); err != nil {
			return err
		}
	}
	progress.report(ManagementCluster, StepProbes, began, fmt.Sprintf("a latency prober in each of %d members, probes delayed by the profile's latencies", len(tb.Members())))
	return nil
}
