package testbed

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
)

// Ports are the TCP ports of one cluster's components, all on 127.0.0.1.
// kwokctl picks free ports itself, but two kwokctl processes started at
// the same moment pick the same ones, and etcd's peer port can only be set
// in a configuration file; Up therefore chooses every port up front.
type Ports struct {
	KubeAPIServer         int `json:"kubeAPIServer"`
	Etcd                  int `json:"etcd"`
	EtcdPeer              int `json:"etcdPeer"`
	KubeControllerManager int `json:"kubeControllerManager"`
	KubeScheduler         int `json:"kubeScheduler"`
	KwokController        int `json:"kwokController"`
	// MetricsServer is set for members only.
	MetricsServer int `json:"metricsServer,omitempty"`
	// Probe is where a member's latency prober answers, and ProbeFront
	// the network's proxy in front of it, which the other members' probers
	// reach (network.go); members only.
	Probe      int `json:"probe,omitempty"`
	ProbeFront int `json:"probeFront,omitempty"`
}

// portRange is where ports are chosen: below Linux's default ephemeral
// range (32768-60999), so that outgoing connections made while the
// testbed starts cannot take a port between its choice and its use.
const (
	portRangeLow  = 20000
	portRangeHigh = 32767
)

// allocatePorts returns a set of distinct ports per role, for the
// components a cluster of that role runs, that were free on 127.0.0.1 a
// moment ago: each is bound while the others are chosen, so no two sets
// share a port.
func allocatePorts(roles ...Role) ([]Ports, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	next := func() (int, error) {
		for range 1000 {
			port := portRangeLow + rand.IntN(portRangeHigh-portRangeLow+1)
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				continue
			}
			held = append(held, l)
			return port, nil
		}
		return 0, fmt.Errorf("failed to find a free port on 127.0.0.1 between %d and %d", portRangeLow, portRangeHigh)
	}
	out := make([]Ports, len(roles))
	for i, role := range roles {
		ports := []*int{
			&out[i].KubeAPIServer, &out[i].Etcd, &out[i].EtcdPeer,
			&out[i].KubeControllerManager, &out[i].KubeScheduler, &out[i].KwokController,
		}
		if role == RoleMember {
			ports = append(ports, &out[i].MetricsServer, &out[i].Probe, &out[i].ProbeFront)
		}
		for _, p := range ports {
			port, err := next()
			if err != nil {
				return nil, err
			}
			*p = port
		}
	}
	return out, nil
}
