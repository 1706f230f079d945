// Package learn is Meridian's learned node scorer: a deep Q-network whose
// layers are permutation-equivariant (DeepSets), so that one set of weights
// scores any number of nodes, trained with double DQN in a simulated cluster.
//
// # The network
//
// A cluster is a set of rows, one per node, each row the node's features
// (Schema) followed by the pod's own features, which are the same in every
// row. A layer maps every row x_i to
//
//	y_i = b + x_i Λ + mean_j(x_j) Γ
//
// so each node's row is mixed with a pooled summary of all rows; a ReLU
// follows every layer but the last, whose single output per row is the
// node's Q-value. Permuting the rows permutes the outputs in the same way,
// and nothing depends on the number of rows, so a network trained on 10-20
// nodes scores 1,000. Because the pod's columns are the same in every row,
// their contribution to the first layer (through Λ and Γ alike) is one
// vector per pod, computed once and added as a bias: the forward pass costs
// the node columns only, and is exactly the network with the pod in every
// row.
//
// A mask hides the nodes that cannot take the pod (it does not fit, or the
// node breaks the pod's hard latency limit): a masked node is never chosen
// and gets the lowest score, whatever its Q-value.
//
// # Serving
//
// Scorer is what a kube-scheduler Score plugin or an extender calls: it
// takes a pod and a snapshot of nodes in physical units (NodeState,
// PodState), builds the rows, and writes one Q-value per node without
// allocating once its buffers have grown. NormalizeScores maps the Q-values
// of the feasible nodes to kube-scheduler's [0, 100].
//
// # Files
//
// Save writes a model as JSON with a format version and the feature schema
// it was trained with; Load refuses a file of another version or schema, so
// a scorer never feeds a model features it was not trained on.
//
// # Training
//
// Train runs double DQN (a target network, a replay buffer, Adam, the Huber
// loss) against any Env; package nodeenv is the simulated cluster.
package learn
