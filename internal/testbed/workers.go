package testbed

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NodeChange is what SetNodes did.
type NodeChange struct {
	// Created and Deleted name the nodes SetNodes created and deleted.
	Created []string
	Deleted []string
	// Workers are the cluster's worker nodes now, by number.
	Workers []string
}

// GroupWorkerName is the name of the n-th worker node of a member's node
// group, as SetNodeGroup creates it: "<cluster>-<group>-<n>", or
// "<cluster>-worker-<n>" for the group "" (SetNodes' workers). Numbers are unique
// across a member's groups, so that every worker has its own address.
func GroupWorkerName(cluster, group string, n int) string {
	return fmt.Sprintf("%s%d", groupPrefix(cluster, group), n)
}

// GroupWorkerNumber returns n of a worker's name (GroupWorkerName), and
// whether name is a worker of the group.
func GroupWorkerNumber(cluster, group, name string) (int, bool) {
	return number(groupPrefix(cluster, group), name)
}

func groupPrefix(cluster, group string) string {
	if group == "" {
		group = "worker"
	}
	return cluster + "-" + group + "-"
}

// number parses name as prefix followed by a number from 1, written
// without leading zeros.
func number(prefix, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// workerAddress is worker n's InternalIP on the index-th member:
// 172.17.<index>.<n> for the first 254, then 172.18 and up, apart from
// the profile's nodes (172.16).
func workerAddress(index, n int) string {
	return fmt.Sprintf("172.%d.%d.%d", 17+(n-1)/254, index, (n-1)%254+1)
}

// SetNodes gives a member of the testbed in dir count worker nodes
// ("<cluster>-worker-<n>"), kwok fake nodes with size as capacity and allocatable,
// the cluster's region and zone as topology labels, and the labels and
// addresses of a profile's nodes. The nodes named in remove are deleted
// first, whatever count is; then, when more workers than count are left,
// the highest-numbered go. New workers take the lowest numbers that are
// neither in use nor in remove, so that a name asked to go does not come
// back. SetNodes returns once deleted nodes are gone and new ones are
// Ready and schedulable. Existing workers keep their size; size is only
// read when a node is created. The profile's nodes (<cluster>-node-<n>)
// are never touched.
//
// A pod on a deleted node stays until kube-controller-manager's pod
// garbage collector deletes it, as it does when a real node goes.
//
// It takes the testbed's lock for the call, waiting while another call
// holds it.
func SetNodes(ctx context.Context, dir, cluster string, size NodeSize, count int, remove []string) (*NodeChange, error) {
	return SetNodeGroup(ctx, dir, cluster, "", size, count, remove)
}

// SetNodeGroup is SetNodes for one node group of a member: count workers
// named GroupWorkerName, labelled with LabelNodeGroup, of the group's own
// size, beside the member's other groups. The group "" is SetNodes's.
func SetNodeGroup(ctx context.Context, dir, cluster, group string, size NodeSize, count int, remove []string) (*NodeChange, error) {
	if err := validateClusterName(cluster); err != nil {
		return nil, fmt.Errorf("invalid cluster: %w", err)
	}
	if group != "" {
		if errs := validation.IsDNS1123Label(group); len(errs) > 0 || group == "worker" || group == "node" {
			return nil, fmt.Errorf("invalid node group %q: must be a DNS label other than \"worker\" and \"node\" (%s)", group, strings.Join(errs, "; "))
		}
	}
	if count < 0 || count > maxNodes {
		return nil, fmt.Errorf("invalid count %d: must be between 0 and %d", count, maxNodes)
	}
	for i, name := range remove {
		if _, ok := GroupWorkerNumber(cluster, group, name); !ok {
			return nil, fmt.Errorf("invalid remove[%d]: %q is not a worker of group %q of cluster %q: want %s", i, name, group, cluster, GroupWorkerName(cluster, group, 1))
		}
	}
	l, err := openLayout(dir)
	if err != nil {
		return nil, err
	}
	unlock, err := l.lockWait(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	st, err := l.readState()
	if err != nil {
		return nil, err
	}
	cs, err := st.find(cluster)
	if err != nil {
		return nil, err
	}
	if cs.Role != RoleMember {
		return nil, fmt.Errorf("cannot give nodes to cluster %q of testbed %q: it is the management cluster, which runs no workloads", cluster, st.Name)
	}
	cr, err := l.credentials(cs)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cr.restConfig(), client.Options{Scheme: Scheme()})
	if err != nil {
		return nil, fmt.Errorf("failed to create a client of cluster %q: %w", cluster, err)
	}
	list := &corev1.NodeList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("failed to list the nodes of cluster %q: %w", cluster, err)
	}
	names := make([]string, len(list.Items))
	for i := range list.Items {
		names[i] = list.Items[i].Name
	}
	plan := planGroup(cluster, group, names, count, remove)
	if len(plan.Created) > 0 {
		if err := size.Validate(); err != nil {
			return nil, err
		}
	}
	if err := deleteNodes(ctx, c, plan.Deleted); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	site := nodeSite{testbed: st.Name, cluster: cluster, region: cs.Region, zone: cs.Zone}
	var create []*corev1.Node
	for _, name := range plan.Created {
		n, _ := GroupWorkerNumber(cluster, group, name)
		node := site.node(name, workerAddress(cs.Index, n), size)
		if group != "" {
			node.Labels[LabelNodeGroup] = group
		}
		create = append(create, node)
	}
	if err := createNodes(ctx, c, create); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", cluster, err)
	}
	return plan, nil
}

// planWorkers decides, from the names of the cluster's nodes, which
// workers to delete and which to create (see SetNodes).
func planWorkers(cluster string, nodes []string, count int, remove []string) *NodeChange {
	return planGroup(cluster, "", nodes, count, remove)
}

// planGroup is planWorkers for a node group: new workers also skip the
// numbers the cluster's other groups use.
func planGroup(cluster, group string, nodes []string, count int, remove []string) *NodeChange {
	existing := map[int]bool{}
	taken := map[int]bool{}
	for _, name := range nodes {
		if i, ok := GroupWorkerNumber(cluster, group, name); ok {
			existing[i] = true
		}
		if i, ok := otherWorker(cluster, name); ok {
			taken[i] = true
		}
	}
	removed := map[int]bool{}
	plan := &NodeChange{}
	for _, name := range remove {
		i, _ := GroupWorkerNumber(cluster, group, name)
		removed[i] = true
		if existing[i] {
			delete(existing, i)
			plan.Deleted = append(plan.Deleted, name)
		}
	}
	kept := make([]int, 0, len(existing))
	for i := range existing {
		kept = append(kept, i)
	}
	slices.Sort(kept)
	for len(kept) > count {
		last := kept[len(kept)-1]
		kept = kept[:len(kept)-1]
		plan.Deleted = append(plan.Deleted, GroupWorkerName(cluster, group, last))
	}
	for n := 1; len(kept) < count; n++ {
		if existing[n] || removed[n] || taken[n] {
			continue
		}
		kept = append(kept, n)
		plan.Created = append(plan.Created, GroupWorkerName(cluster, group, n))
	}
	slices.Sort(kept)
	for _, i := range kept {
		plan.Workers = append(plan.Workers, GroupWorkerName(cluster, group, i))
	}
	return plan
}

// otherWorker returns the number of a worker of any group of the cluster:
// a name "<cluster>-<group>-<n>" that is not a profile node.
func otherWorker(cluster, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, cluster+"-")
	if !ok || strings.HasPrefix(rest, "node-") {
		return 0, false
	}
	i := strings.LastIndex(rest, "-")
	if i <= 0 {
		return 0, false
	}
	return number(rest[:i+1], rest)
}

// deleteNodes deletes nodes and waits until they are gone.
func deleteNodes(ctx context.Context, c client.Client, names []string) error {
	for _, name := range names {
		n := &corev1.Node{}
		n.Name = name
		if err := c.Delete(ctx, n); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete node %s: %w", name, err)
		}
	}
	return poll(ctx, 100*time.Millisecond, func() (bool, error) {
		for _, name := range names {
			err := c.Get(ctx, client.ObjectKey{Name: name}, &corev1.Node{})
			if err == nil {
				return false, nil
			}
			if !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("failed to get node %s: %w", name, err)
			}
		}
		return true, nil
	})
}
