package motion

import "fmt"

// SetLimits replaces the limits of a running gate (runtime parameters: docs/ros2.md, "Parameters"). Invalid
// limits are refused and the gate keeps its own. The new limits act from the next Step: a lower speed limit
// lowers the current velocity at once (stops are immediate), a shorter timeout moves NextDeadline. The caller
// decides which changes are allowed (driver/config.SetRuntime only tightens).
func (g *Gate) SetLimits(l Limits) error {
	if g.limitsErr != nil {
		return fmt.Errorf("gate built with bad limits keeps them: %w", g.limitsErr)
	}
	if err := l.Validate(); err != nil {
		return err
	}
	g.lim = l
	return nil
}

// SetMaxSpeeds sets full stick deflection (the gate's speed limits, changed at run time).
func (p *Pad) SetMaxSpeeds(linear, angular float64) error {
	c := p.cfg
	c.MaxLinear, c.MaxAngular = linear, angular
	if err := c.Validate(); err != nil {
		return err
	}
	p.cfg = c
	return nil
}
