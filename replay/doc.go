// Package replay plays a capture's recorded device-to-host bytes out of ptys at the recorded timing, so
// `rosorin-base run`, the LiDAR reader or any serial program runs against a recording, and records or
// compares what the program writes back.
//
// Spec: the capture layout of docs/capture.md (raw channels /serial/KIND/rx and /serial/KIND/tx, schema
// rosorin_msgs/msg/SerialChunk, kind in the channel metadata). Each rx channel becomes a pty published at
// DIR/ttyACM0 (board) or DIR/lidar (LiDAR); a second channel of a kind gets a numbered name.
//
// Errata: a pty has no line rate, so bytes come out at the recorded read boundaries and times, not at the
// baud's byte pace; a program that opens its device after the playback started misses what came before
// (as it would on the robot). Linux only (ptys).
package replay
