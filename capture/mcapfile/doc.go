// Package mcapfile records the robot's serial streams into MCAP files that survive a crash, and reads,
// describes and recovers them.
//
// Method (measured figures in docs/capture.md): a Recorder writes an unchunked MCAP file, NAME.part, record by
// record through a small buffer that is flushed to the kernel every FlushEvery (100 ms) and fsync'd every
// SyncEvery (1 s). A SIGKILL loses only the unflushed buffer (at most FlushEvery of data); a power loss at most
// SyncEvery plus the flush. Close rewrites NAME.part into NAME, a chunked, indexed file with message
// indexes, chunk indexes and a Statistics record, then removes NAME.part. `capture recover` runs the same
// rewrite on a cut .part (or any cut MCAP file): it reads linearly to the last complete record and says what
// it dropped.
//
// Channels: raw serial bytes are one message per read or write on /serial/DEVICE/rx|tx, schema
// rosorin_msgs/msg/SerialChunk ("uint32 seq", "uint8[] data", CDR), the MCAP message sequence equal to seq
// and log time the host receive time; decoded values use the Humble schemas of protocol/rosmsg. The header
// profile is "ros2", every channel carries offered_qos_profiles, and a metadata record "rosorin.capture" holds
// device, baud, host and toolkit version. The rewrite ends with a "rosbag2" metadata record
// (serialized_metadata: rosbag2 Humble's metadata.yaml, version 5) with the file's own counts.
//
// Errata: the go mcap v1.7.0 chunked writer has no public flush, which is why recording is unchunked; its
// lexer panics on some hostile chunks (Read turns that into a cut); attachments are not copied by Rewrite.
package mcapfile
