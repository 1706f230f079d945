// Package advisor serves the optimizer over the seed's REST API (seed 004,
// section 7.3) so that a policy keeper, or Meridian's autoscaler, can feed
// it samples and ask for advice:
//
//   - POST /init registers the input metrics, the target metric with its
//     thresholds and the m_opt_init_* constants, and keeps or empties the
//     knowledge base (m_opt_init_knowledge_base: use_existing or build_new).
//   - POST /sample adds one observation: every input metric's value, the
//     target's value, the replica count (vm_number) and a timestamp.
//   - GET /advice returns the advice with the seed's fields (valid, phase,
//     vm_number, reliability, error_msg) and Meridian's (reason, predicted
//     target, placement and cost per hour).
//   - GET /report is an HTML page: each metric observed against its
//     regression's prediction, the target against the network's, and the
//     advice history.
//
// Bad bodies get HTTP 400 with a JSON error naming the field and what would
// be valid; nothing is changed by a refused request. The knowledge base is
// written to a Store after every sample; FileStore keeps it in a JSON file,
// MemStore in memory (tests, the simulator).
package advisor
