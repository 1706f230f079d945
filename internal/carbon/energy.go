package carbon

// EnergyModel turns a run's size into electrical power, so that intensity
// (g/kWh) integrated over the run gives grams. Location-based: the grid's
// intensity where and when the run draws power, nothing embodied.
//
// A run's power is
//
//	watts = (vCPU x WattsPerVCPU + GiB x WattsPerGiB) x PUE
//
// where vCPU is CPUMilli/1000 and GiB MemoryBytes/2^30.
type EnergyModel struct {
	// WattsPerVCPU is the mean power of one vCPU.
	WattsPerVCPU float64
	// WattsPerGiB is the power of one GiB of memory.
	WattsPerGiB float64
	// PUE is the data centre's power usage effectiveness per provider
	// ("azure", "gcp", "aws"); DefaultPUE for the others.
	PUE map[string]float64
	// DefaultPUE applies to providers PUE does not name; 1 when zero.
	DefaultPUE float64
}

// DefaultEnergyModel is Cloud Carbon Footprint's model
// (https://www.cloudcarbonfootprint.org/docs/methodology, coefficients of
// @cloud-carbon-footprint/core, Apache-2.0):
//
//   - compute: average watts = min + utilisation x (max - min) per vCPU, with
//     AWS's average min 0.74 W and max 3.5 W and CCF's default utilisation of
//     50 %: 0.74 + 0.5 x 2.76 = 2.12 W per vCPU;
//   - memory: 0.000392 kWh per GB-hour, 0.392 W per GiB (CCF applies it per
//     GB; the difference, 7 %, is below the model's precision);
//   - PUE: AWS 1.135, GCP 1.1, Azure 1.185; 1.135 otherwise.
//
// A 4 vCPU, 16 GiB run on Azure draws (4 x 2.12 + 16 x 0.392) x 1.185 =
// 17.48 W, 17.48 Wh per hour.
var DefaultEnergyModel = EnergyModel{
	WattsPerVCPU: 2.12,
	WattsPerGiB:  0.392,
	PUE:          map[string]float64{"aws": 1.135, "gcp": 1.1, "azure": 1.185},
	DefaultPUE:   1.135,
}

// Watts returns the power of a run of the size on the provider's hardware.
func (m EnergyModel) Watts(provider string, cpuMilli, memoryBytes int64) float64 {
	pue, ok := m.PUE[provider]
	if !ok {
		pue = m.DefaultPUE
	}
	if pue == 0 {
		pue = 1
	}
	w := float64(cpuMilli)/1000*m.WattsPerVCPU + float64(memoryBytes)/(1<<30)*m.WattsPerGiB
	return w * pue
}
