package scanmatch

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestPoseAlgebra(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	near := func(a, b Pose2) bool {
		return math.Abs(a.X-b.X) < 1e-12 && math.Abs(a.Y-b.Y) < 1e-12 && math.Abs(wrap(a.Yaw-b.Yaw)) < 1e-12
	}
	for i := 0; i < 1000; i++ {
		p := Pose2{rng.NormFloat64(), rng.NormFloat64(), 4 * (rng.Float64() - 0.5)}
		q := Pose2{rng.NormFloat64(), rng.NormFloat64(), 4 * (rng.Float64() - 0.5)}
		if !near(p.Compose(p.Between(q)), q) || !near(p.Compose(p.Inverse()), Pose2{}) {
			t.Fatalf("compose/between/inverse broken for %+v %+v", p, q)
		}
		v := Twist{rng.NormFloat64(), rng.NormFloat64(), 3 * rng.NormFloat64()}
		if i%10 == 0 {
			v.W = 0
		}
		dt := 0.01 + 0.2*rng.Float64()
		got := Log(v.Exp(dt), dt)
		if math.Abs(got.Vx-v.Vx) > 1e-9 || math.Abs(got.Vy-v.Vy) > 1e-9 || math.Abs(got.W-v.W) > 1e-9 {
			t.Fatalf("Log(Exp(%+v)) = %+v", v, got)
		}
		// Exp against many small steps.
		var s Pose2
		const n = 2000
		for k := 0; k < n; k++ {
			s = s.Compose(v.Exp(dt / n))
		}
		if e := v.Exp(dt); math.Abs(e.X-s.X) > 1e-9 || math.Abs(e.Y-s.Y) > 1e-9 {
			t.Fatalf("Exp %+v, integrated %+v", e, s)
		}
	}
	if x, y := (Pose2{1, 2, math.Pi / 2}).Apply(1, 0); math.Abs(x-1) > 1e-15 || math.Abs(y-3) > 1e-15 {
		t.Errorf("Apply: (%v, %v), want (1, 3)", x, y)
	}
}

// TestEigMatchesGonumMat: the allocation-free eigen step gives what mat.EigenSym gives.
func TestEigMatchesGonumMat(t *testing.T) {
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		var a mat.Dense
		g := mat.NewDense(3, 5, nil)
		for k := 0; k < 15; k++ {
			g.Set(k/5, k%5, rng.NormFloat64()*math.Pow(10, float64(k%3)-1))
		}
		a.Mul(g, g.T())
		sym := mat.NewSymDense(3, nil)
		for r := 0; r < 3; r++ {
			for c := r; c < 3; c++ {
				sym.SetSym(r, c, a.At(r, c))
			}
		}
		var es mat.EigenSym
		if !es.Factorize(sym, true) {
			t.Fatal("mat.EigenSym failed")
		}
		want := es.Values(nil)
		sort.Float64s(want)
		if !o.eig([6]float64{sym.At(0, 0), sym.At(0, 1), sym.At(0, 2), sym.At(1, 1), sym.At(1, 2), sym.At(2, 2)}) {
			t.Fatal("eig failed")
		}
		for k := 0; k < 3; k++ {
			if math.Abs(o.eigW[k]-want[k]) > 1e-9*(1+math.Abs(want[k])) {
				t.Fatalf("eigenvalues %v, mat.EigenSym %v", o.eigW, want)
			}
			// A v = lambda v for column k.
			v := mat.NewVecDense(3, []float64{o.eigA[k], o.eigA[3+k], o.eigA[6+k]})
			var av mat.VecDense
			av.MulVec(sym, v)
			av.AddScaledVec(&av, -o.eigW[k], v)
			if mat.Norm(&av, 2) > 1e-9*(1+math.Abs(want[2])) {
				t.Fatalf("column %d is not an eigenvector: residual %g", k, mat.Norm(&av, 2))
			}
		}
	}
	if o.eig([6]float64{math.NaN()}) {
		t.Error("eig accepted a NaN matrix")
	}
}

func TestConfigValidation(t *testing.T) {
	if _, err := New(DefaultConfig()); err != nil {
		t.Fatalf("default config: %v", err)
	}
	bad := map[string]func(*Config){
		"Bins":           func(c *Config) { c.Bins = 0 },
		"AngleIncrement": func(c *Config) { c.AngleIncrement = 0 },
		"too wide":       func(c *Config) { c.AngleIncrement = 0.1 },
		"Mount":          func(c *Config) { c.Mount.X = math.NaN() },
		"Mask":           func(c *Config) { c.Mask = []Sector{{math.Inf(1), 0}} },
		"RangeMin":       func(c *Config) { c.RangeMin = -1 },
		"MaxIterations":  func(c *Config) { c.MaxIterations = 0 },
		"SearchBins":     func(c *Config) { c.SearchBins = 0 },
		"NormalBins":     func(c *Config) { c.NormalBins = 1000 },
		"MinPoints":      func(c *Config) { c.MinPoints = 2 },
		"Huber":          func(c *Config) { c.Huber = 0 },
		"MinIncidence":   func(c *Config) { c.MinIncidence = math.NaN() },
		"KeyframeYaw":    func(c *Config) { c.KeyframeYaw = -1 },
		"MinOverlap":     func(c *Config) { c.MinOverlap = 2 },
		"KeyframeOverlap": func(c *Config) {
			c.KeyframeOverlap = math.NaN()
		},
	}
	for name, mutate := range bad {
		c := DefaultConfig()
		mutate(&c)
		var ce *ConfigError
		if _, err := New(c); !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConfigError", name, err)
		}
	}
}

// TestDefaultMask: the default mask hides exactly the sim's body sectors (native 291..67 degrees through
// 0: the blind rear and the self-returns), 136 degrees, and nothing in front.
func TestDefaultMask(t *testing.T) {
	o, _ := New(DefaultConfig())
	n := 0
	for i, m := range o.masked {
		if m {
			n++
		}
		base := wrap(o.cfg.Mount.Yaw+float64(i)*o.cfg.AngleIncrement) * 180 / math.Pi
		if m && math.Abs(base) < 111 || !m && math.Abs(base) > 113 {
			t.Errorf("bin %d (base bearing %.1f deg) masked %v", i, base, m)
		}
	}
	if n < 150 || n > 153 {
		t.Errorf("%d bins masked, want ~151 (136 degrees)", n)
	}
	if !(Sector{170, -170}).contains(180) || (Sector{170, -170}).contains(0) || !(Sector{-10, 10}).contains(0) {
		t.Error("Sector.contains is wrong across +-180")
	}
}
