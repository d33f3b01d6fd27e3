// Package charger tells from the battery voltage when the charger is plugged in or pulled, and keeps the
// plugged state in a small JSON record across driver restarts (a restart does not move the cable). Pure
// logic: time comes in as arguments.
//
// Spec: chapter 11 publish_battery (PLUG_STEP_MV 190): a step of at least StepMV against the median of the
// voltage before it is a plug or an unplug.
//
// Errata (differences from the seed): samples taken with the wheels enabled, or within WheelsOffFor of their
// disable, never form the baseline (the seed's baseline could reach back into the loaded voltage and report a
// load release as PLUGGED); every disable counts (the seed reset its timer only on ~/enable false, not on a
// trip); the wheels count as just disabled at start.
package charger
