package learn

import "fmt"

// TrainClusterModel trains m with Train's double DQN on environments whose
// rows are clusters (ClusterColumns) and whose pod columns are the
// workload's (WorkloadColumns).
//
// Train's replay keeps len(NodeColumns) values per row; a cluster row is
// shorter, so each observation is copied into a buffer of that size, the
// cluster rows first (the network reads rows×len(ClusterColumns) values from
// the start) and zeros after. When the replay keeps the network's own
// width instead, the padding is merely unused.
func TrainClusterModel(m *ClusterModel, cfg TrainConfig, newEnv func(episode int) (Env, error), reportEvery int, report func(Progress)) error {
	if len(ClusterColumns) > len(NodeColumns) {
		return fmt.Errorf("cluster rows have %d columns, more than the %d of a node row that the replay keeps", len(ClusterColumns), len(NodeColumns))
	}
	if m.Net.NodeFeatures != len(ClusterColumns) || m.Net.PodFeatures != len(WorkloadColumns) {
		return fmt.Errorf("%w: the network takes %d+%d columns, the cluster schema has %d+%d", ErrSchema,
			m.Net.NodeFeatures, m.Net.PodFeatures, len(ClusterColumns), len(WorkloadColumns))
	}
	wrap := func(episode int) (Env, error) {
		env, err := newEnv(episode)
		if err != nil {
			return nil, err
		}
		return &paddedEnv{Env: env}, nil
	}
	return Train(&Model{Net: m.Net, Reward: m.Reward, Info: m.Info}, cfg, wrap, reportEvery, report)
}

// paddedEnv widens each observation to len(NodeColumns) values per row.
type paddedEnv struct {
	Env
	buf []float64
}

func (e *paddedEnv) Observe() ([]float64, int, []float64, []bool, bool) {
	x, rows, pod, mask, ok := e.Env.Observe()
	if !ok {
		return x, rows, pod, mask, ok
	}
	n := rows * len(NodeColumns)
	if cap(e.buf) < n {
		e.buf = make([]float64, n)
	}
	buf := e.buf[:n]
	used := copy(buf, x[:rows*len(ClusterColumns)])
	clear(buf[used:])
	return buf, rows, pod, mask, true
}
