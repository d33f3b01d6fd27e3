package target

import "context"

// Homer is a target whose world can put the robot back on its mark (the pose it started the session in)
// between a floor campaign's runs: the simulator's (SimTarget, sim.Sim.Home). A robot cannot; the campaign
// asks the operator instead, as it does for the battery.
type Homer interface {
	Home(ctx context.Context) error
}

var _ Homer = (*SimTarget)(nil)
