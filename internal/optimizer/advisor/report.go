package advisor

import (
	"fmt"
	"html/template"
	"math"
	"net/http"

	"github.com/meridian-dev/meridian/internal/optimizer"
	"github.com/meridian-dev/meridian/internal/optimizer/chart"
)

// reportWindow is how many of the newest samples the report charts.
const reportWindow = 300

var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Meridian advisor: {{.Target}}</title>
<style>body{font-family:sans-serif;margin:2em;max-width:60em} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:2px 8px;text-align:right} th{background:#f4f4f4} td.l{text-align:left}</style>
</head><body>
<h1>Meridian advisor</h1>
{{if not .Initialized}}<p>Not initialized: POST /init first.</p>{{else}}
<table>
<tr><th>phase</th><td class="l">{{.Phase}}</td></tr>
<tr><th>why</th><td class="l">{{.Why}}</td></tr>
<tr><th>samples in the knowledge base</th><td>{{.Samples}} (observed in all: {{.Seen}})</td></tr>
<tr><th>target band</th><td class="l">{{.Target}} in [{{.Min}}, {{.Max}}]</td></tr>
<tr><th>held-out RMSE (fraction of band)</th><td>{{.HoldoutRMSE}} ({{.HoldoutError}})</td></tr>
<tr><th>reliability</th><td>{{.Reliability}}</td></tr>
<tr><th>in-sample correlation (the seed's reliability)</th><td>{{.Correlation}}</td></tr>
</table>
<h2>Metrics after a scaling step: observed and predicted</h2>
<p>Each metric at sample i+1 against its regression's prediction from sample i and the replica change between them (the newest {{.Window}} samples).</p>
<table><tr><th>metric</th><th>w0</th><th>w1</th><th>w2</th><th>w3</th><th>one-step RMSE</th></tr>
{{range .Metrics}}<tr><td class="l">{{.Name}}</td><td>{{index .W 0}}</td><td>{{index .W 1}}</td><td>{{index .W 2}}</td><td>{{index .W 3}}</td><td>{{.RMSE}}</td></tr>
{{end}}</table>
{{range .Metrics}}{{.Chart}}{{end}}
<h2>Target: observed and fitted</h2>
{{.TargetChart}}
<h2>Advice history</h2>
{{.AdviceChart}}
<table><tr><th>time</th><th>phase</th><th>valid</th><th>current</th><th>advice</th><th>reliability</th><th class="l">reason</th></tr>
{{range .History}}<tr><td>{{.Time.UTC.Format "2006-01-02 15:04:05"}}</td><td>{{.Phase}}</td><td>{{.Valid}}</td><td>{{.Current}}</td><td>{{.Replicas}}</td><td>{{printf "%.1f" .Reliability}}</td><td class="l">{{.Reason}}{{.ErrorMsg}}</td></tr>
{{end}}</table>
{{end}}
</body></html>
`))

type metricView struct {
	Name  string
	W     [4]string
	RMSE  string
	Chart template.HTML
}

type reportView struct {
	Initialized                            bool
	Phase, Why, Target                     string
	Min, Max                               float64
	Samples, Seen, Window                  int
	HoldoutRMSE, HoldoutError, Reliability string
	Correlation                            string
	Metrics                                []metricView
	TargetChart, AdviceChart               template.HTML
	History                                []optimizer.Advice
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", v)
}

func (s *Server) handleReport(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	view := s.reportView()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := reportPage.Execute(w, view); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// reportView gathers the report's figures; the caller holds s.mu.
func (s *Server) reportView() reportView {
	if s.opt == nil {
		return reportView{}
	}
	o := s.opt
	cfg := o.Config()
	phase, why := o.Phase()
	all := o.Samples()
	samples := all[max(0, len(all)-reportWindow):]
	v := reportView{
		Initialized: true, Phase: string(phase), Why: why, Target: cfg.Target.Name,
		Min: cfg.Target.Min, Max: cfg.Target.Max, Samples: len(all), Seen: o.Seen(), Window: reportWindow,
		HoldoutRMSE: "n/a", HoldoutError: "n/a", Correlation: "n/a", Reliability: num(o.Reliability()),
		History: o.History(),
	}
	m := o.Model()
	if m != nil {
		v.HoldoutRMSE, v.HoldoutError, v.Correlation = num(m.HoldoutRMSE), num(m.HoldoutError), num(m.InSampleCorrelation)
	}
	for k, name := range cfg.Inputs {
		obs := make([]float64, len(samples))
		pred := make([]float64, len(samples))
		mv := metricView{Name: name, W: [4]string{"n/a", "n/a", "n/a", "n/a"}, RMSE: "n/a"}
		sq, n := 0.0, 0
		for i, sm := range samples {
			obs[i], pred[i] = sm.Inputs[k], math.NaN()
			if m != nil && i > 0 {
				pred[i] = m.PredictInput(k, samples[i-1], sm.Replicas)
				sq += (pred[i] - obs[i]) * (pred[i] - obs[i])
				n++
			}
		}
		if m != nil {
			r := m.Regressions[k]
			mv.W = [4]string{num(r.W[0]), num(r.W[1]), num(r.W[2]), num(r.W[3])}
			if n > 0 {
				mv.RMSE = num(math.Sqrt(sq / float64(n)))
			}
		}
		mv.Chart = chart.Chart{Title: name, XLabel: "sample", YLabel: name, Series: []chart.Series{
			{Name: "observed", Color: "#1f77b4", Y: obs},
			{Name: "predicted", Color: "#ff7f0e", Y: pred, Dashed: true},
		}}.SVG()
		v.Metrics = append(v.Metrics, mv)
	}
	obs := make([]float64, len(samples))
	fitted := make([]float64, len(samples))
	chain := make([]float64, len(samples))
	for i, sm := range samples {
		obs[i], fitted[i], chain[i] = sm.Target, math.NaN(), math.NaN()
		if m != nil {
			fitted[i] = m.Net.Predict(sm.Inputs)
			if i > 0 {
				chain[i] = m.PredictTarget(samples[i-1], sm.Replicas)
			}
		}
	}
	v.TargetChart = chart.Chart{Title: cfg.Target.Name, XLabel: "sample", YLabel: cfg.Target.Name, HLines: []float64{cfg.Target.Min, cfg.Target.Max},
		Series: []chart.Series{
			{Name: "observed", Color: "#1f77b4", Y: obs},
			{Name: "network(metrics)", Color: "#2ca02c", Y: fitted, Dashed: true},
			{Name: "one step ahead", Color: "#ff7f0e", Y: chain, Dashed: true},
		}}.SVG()
	hist := o.History()
	cur := make([]float64, len(hist))
	adv := make([]float64, len(hist))
	for i, a := range hist {
		cur[i], adv[i] = float64(a.Current), float64(a.Replicas)
		if !a.Valid {
			adv[i] = math.NaN()
		}
	}
	v.AdviceChart = chart.Chart{Title: "replicas", XLabel: "advice", YLabel: "replicas", Series: []chart.Series{
		{Name: "current", Color: "#1f77b4", Y: cur},
		{Name: "advised (valid)", Color: "#d62728", Y: adv, Dashed: true},
	}}.SVG()
	return v
}
