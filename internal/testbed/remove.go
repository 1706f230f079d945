package testbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
)

// RemoveCluster stops every process of a cluster AddCluster added to the
// testbed in dir, checks that none is left (as Down does, from /proc),
// and removes its folder, its entry in testbed.json and its kubeconfig
// context. A cluster or a testbed that does not exist is not an error:
// RemoveCluster is idempotent. The management cluster and the profile's
// members are refused (ErrProfileCluster); Down stops those.
//
// It waits for the testbed's lock while another call holds it.
func RemoveCluster(ctx context.Context, dir, cluster string) error {
	if err := validateClusterName(cluster); err != nil {
		return fmt.Errorf("invalid cluster: %w", err)
	}
	l, err := openLayout(dir)
	if err != nil {
		return err
	}
	unlock, err := l.lockWait(ctx)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unlock()

	st, err := l.readState()
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if cs := st.cluster(cluster); cs != nil && !cs.Added {
		return fmt.Errorf("%w: cannot remove %q from testbed %q, it is its %s; 'down' stops the whole testbed",
			ErrProfileCluster, cluster, st.Name, clusterKind(cs))
	}
	if err := l.dropCluster(ctx, st, cluster); err != nil {
		return fmt.Errorf("failed to remove cluster %q from testbed %q: %w", cluster, st.Name, err)
	}
	return nil
}

// dropCluster stops a cluster's processes and removes every trace of it:
// its folders, its kwokctl files, its state and its kubeconfig context.
// The caller holds the lock. Processes and files left by a cluster that
// is no longer in the state (a removal that died half-way) go too.
func (l layout) dropCluster(ctx context.Context, st *state, cluster string) error {
	if err := validateClusterName(cluster); err != nil {
		return err
	}
	if _, err := l.stopCluster(ctx, cluster); err != nil {
		return err
	}
	for _, p := range []string{l.clusterDir(cluster), l.kwokctlConfig(cluster), l.kwokctlLog(cluster), l.containersDir(cluster)} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("failed to remove %s: %w", p, err)
		}
	}
	n := len(st.Clusters)
	st.Clusters = slices.DeleteFunc(st.Clusters, func(cs clusterState) bool { return cs.Name == cluster })
	if len(st.Clusters) == n {
		return nil
	}
	if err := l.writeState(st); err != nil {
		return err
	}
	return l.writeKubeconfig(st)
}
