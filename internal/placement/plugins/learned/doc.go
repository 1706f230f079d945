// Package learned is the score plugin that ranks member clusters with a
// learned model: the DeepSets Q-network of package learn, trained in the
// multi-cluster simulator (package learn/clusterenv), one row per cluster.
//
// The model scores the candidate clusters together (each row is mixed with
// a pooled summary of all rows), so Score returns nothing of its own and
// NormalizeScore does the work over all the candidates at once: it encodes
// every candidate (State), runs the network once and maps the Q-values of
// the clusters that can take a replica onto [MinScore, MaxScore], the best
// MaxScore. A cluster that passed the filters but holds no replica of the
// workload (or that the workload marks Full) is masked: it scores
// MinScore whatever its Q-value, so it is never ranked first for a
// replica it cannot take. Filters are the framework's, the same for every
// policy; the model only orders what they let through.
//
// New loads the model shipped with Meridian (default-model.json, trained
// by `meridian learn train --level cluster`; its info records how);
// Factory loads another file. The same plugin serves the controllers and
// the simulator: both call the placement framework.
package learned
