// Package optimizer is Meridian's price/performance optimizer (seed 004,
// MiCADO's Optimizer): it learns how a change of the replica count moves the
// system metrics and how the metrics move a target metric, and advises the
// fewest replicas that keep the target inside a band.
//
// # Models
//
// Two models are learned from a rolling knowledge base of samples (the
// newest Config.KnowledgeBaseSize observations of replicas, metrics and
// target):
//
//   - One linear regression per system metric, the seed's
//     m' = w0 + w1·m·N/(N+N') + w2·m·N'/(N+N'), fitted on consecutive
//     samples (m at N replicas, then m' at N'). It predicts a metric after a
//     hypothetical change from N to N' replicas.
//   - A multi-layer perceptron with one tanh hidden layer that predicts the
//     target from the metrics. Inputs and target are standardized with the
//     training set's mean and deviation; the weights are fitted by L-BFGS on
//     the mean squared error with a small L2 penalty, from a seeded start, so
//     training is deterministic.
//
// # Reliability and phases
//
// The seed reports reliability as an in-sample correlation and leaves the
// switch from training to production undefined. Here both come from held-out
// data: the models are fitted on all but the newest Config.HoldoutFraction
// of the knowledge base and the whole chain (regressions, then network) is
// asked to predict the target of each held-out sample from the sample before
// it and the replica change between them. The held-out error is that
// prediction's root mean square error, without the largest 5 % of the
// residuals (a load that jumps between two intervals is unpredictable by any
// model), divided by the band's width (max - min), and the reliability is
// 100·(1 - error), clamped to [0, 100].
// The optimizer enters production once it holds at least
// Config.TrainingSamplesRequired samples and the held-out error is at most
// Config.MaxHoldoutError; it returns to training when the error exceeds 1.5
// times that threshold, so one noisy refit does not flap the phase. The
// models used for advice are then refitted on the whole knowledge base.
// RuleSeed reproduces the seed instead: production after the required count
// of samples, reliability the in-sample Pearson correlation.
//
// # Advice
//
// Decide is a pure function of the configuration, the trained models, the
// last sample, the previous advice and the time. In production it evaluates
// every count from N - MaxDownscaleDelta to N + MaxUpscaleDelta (clamped to
// the replica bounds) and predicts the target for each. With at least 20
// held-out residuals (observed less predicted target, one interval ahead) it
// estimates each count's chance of landing in the band as the fraction of
// residuals that, added to its prediction, stay in the band, and advises the
// fewest replicas among the likeliest; the held-out errors are its margin.
// With fewer it advises the smallest count whose prediction lies in the band
// shrunk by Config.AdviceMargin, else the count whose prediction is closest
// to the band. Either way, when the last target was observed above the band
// and the model advises no more replicas than the last sample's, the advice
// is one more: a miss the model did not foresee is not left to it. During training it
// explores: one replica up or down at random (seeded by Config.Seed and the
// sample count), but never down when the last target is within
// Config.SafetyMargin of the band's upper edge, and up when it is past it,
// always inside the replica bounds. A count different from the previous
// advice is held back until Config.FreezeInterval has passed since the
// previous change.
//
// # Cost
//
// When Config.Clusters lists clusters with prices, the advised replicas are
// placed on the cheapest clusters first (up to each cluster's capacity) and
// the advice carries that placement and its cost per hour. Because the
// cheapest-first cost grows with the count, the fewest replicas in band is
// also the cheapest advice in band.
//
// # Use from a controller
//
// Optimizer wraps the knowledge base, the models and the advice state:
// Observe adds a sample (and retrains every Config.RetrainEvery samples),
// Advise(now) decides. A controller observes (evaluates its queries), calls
// Observe then Advise, and acts on Advice.Replicas when Advice.Valid.
package optimizer
