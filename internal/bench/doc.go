// Package bench measures Meridian end to end on real clusters: on a local
// testbed (seed 001's five clusters), how long it takes from creating a
// MultiClusterDeployment until every member Deployment exists and until
// every pod is Running, for several sizes and placement policies, as seed
// 001's Table IV reports for mck8s. The controllers run in the benchmark's
// process, exactly as `meridian controller` runs them.
package bench
