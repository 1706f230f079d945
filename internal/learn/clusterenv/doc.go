// Package clusterenv is where the learned cluster scorer trains and is
// evaluated: the member clusters of a `meridian sim` scenario, modelled
// node by node with internal/sim/cluster, a workload from
// internal/sim/workload's generator, and the real placement framework
// deciding, with the learned plugin (placement/plugins/learned) among its
// score plugins.
//
// # Training
//
// Sim plays a scenario one decision per task: the snapshot of every
// cluster, the workload (the task's replicas still to place, with
// substitution and bursting) and the clusters the framework's filters let
// through, which are the rows the model sees. The agent picks one of those
// that can take a replica (the mask); the framework then places the
// workload with that cluster first and the model ordering the rest (the
// division, the cloud last, the overflow, are the framework's own), and the
// replicas become pods in their clusters. Replicas no cluster holds wait
// and are retried, oldest first, when pods leave. The cloud is the
// scenario's cloud at its largest size from the start, so that a
// placement is charged for the cloud CPU it leads to rather than for the
// provisioner's delays, which no ranking changes.
//
// The reward (RewardCloudPending) is minus the cloud CPU and the unplaced
// CPU, in core-minutes, that accrue until the next decision: physical
// quantities of the run, which a placement changes through what it leaves
// room for later. Episodes are random worlds (TrainingScenario): 3 to 6
// members, node shapes of seed 001's scenarios, generated workloads;
// learn.TrainClusterModel runs double DQN on them, deterministic for the
// seeds.
//
// # Evaluation
//
// Evaluate runs a `meridian sim` scenario (VI-B and heavy-tail by default,
// never drawn in training) with seeds not used in training, in the
// simulator itself (package sim: the controllers' decisions, the
// provisioner with its delays, the members' schedulers), once with
// WorstFit and BestFit and once with the learned plugin as the placer, all
// with substitution, bursting and reactive provisioning. Table and HTML
// report the simulator's pending replicas, cloud CPU-hours and cost, the
// members' CPU imbalance and the time per decision.
package clusterenv
