// Package kinematics is the mecanum chassis both ways: WheelRPS turns a body velocity (Twist) into the four
// wheel speeds the board is sent, BodyTwist turns commanded wheel speeds back into the body velocity they give
// (the recordings' /wheel_twist). Pure: no I/O, no clock, no state.
//
// Spec: chapter 11 of the seed (mecanum_rps), docs/motion_safety.md for the chassis figures. The two
// directions are tested as a round trip: BodyTwist(WheelRPS(t)) == t for every twist (the four wheels
// over-determine three velocities, so the inverse is the least-squares one and exact on what WheelRPS gives).
package kinematics
