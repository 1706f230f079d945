package clusterapi

// SchedulerConfig is the cloud cluster's kube-scheduler configuration, for
// the tests of package clusterapi_test.
const SchedulerConfig = schedulerConfig
