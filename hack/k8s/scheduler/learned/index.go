package learned

import (
	"unsafe"

	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// nodeIndex finds a node's position in the snapshot's list by its
// NodeInfo's address: open addressing with linear probing in a
// power-of-two table at most half full, Fibonacci hashing of the address.
// PreScore and every Score call look a node up, up to 10,000 times per
// pod at 5,000 nodes; this costs a multiplication and mostly one cache
// line, where a map of pointers hashes its key and compares a group of
// control bytes first. It is not modified once built, so that Score calls
// may read it at once.
type nodeIndex struct {
	slots []slot
	shift uint
}

type slot struct {
	key *framework.NodeInfo
	i   int32
}

// newNodeIndex returns an index with room for n nodes.
func newNodeIndex(n int) *nodeIndex {
	bits := uint(1)
	for 1<<bits < 2*n {
		bits++
	}
	return &nodeIndex{slots: make([]slot, 1<<bits), shift: 64 - bits}
}

func (x *nodeIndex) home(p *framework.NodeInfo) int {
	// The garbage collector does not move heap objects, so an address is
	// a stable key while the layout holds the NodeInfo.
	return int((uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15) >> x.shift)
}

// put records that p is at position i.
func (x *nodeIndex) put(p *framework.NodeInfo, i int32) {
	mask := len(x.slots) - 1
	for h := x.home(p); ; h = (h + 1) & mask {
		if s := &x.slots[h]; s.key == nil || s.key == p {
			s.key, s.i = p, i
			return
		}
	}
}

// get returns p's position.
func (x *nodeIndex) get(p *framework.NodeInfo) (int32, bool) {
	if p == nil {
		return 0, false
	}
	mask := len(x.slots) - 1
	for h := x.home(p); ; h = (h + 1) & mask {
		s := &x.slots[h]
		if s.key == p {
			return s.i, true
		}
		if s.key == nil {
			return 0, false
		}
	}
}
