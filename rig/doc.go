// Package rig reads a rig file: one robot named in YAML (its board and LiDAR devices, the driver's control
// socket, the service's commands, the driver's configuration, stand or floor), or the simulator. A rig file
// is the flags stopproof's live target and rosorin-base doctor already take, in one file, so a CI runner
// names its robot once: `rosorin-base doctor --rig FILE`, `stopproof doctor|prove|campaign --rig FILE`. Flags
// given beside --rig override the file (Flags lists what a file sets).
//
// Parse refuses unknown keys, a second document, relative device paths, a live rig without a board or
// service commands and a sim rig that names devices: each with the key and what to write. docs/rigs.md has
// the format.
package rig
