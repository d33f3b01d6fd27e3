// Package capture is the pure decoding layer of the capture tools: it turns raw byte captures of the robot's
// two serial streams (the controller board's AA 55 frames, protocol/board; the COIN-D6 LiDAR's packets,
// protocol/coind6) into records, one per frame or packet, with its byte offset in the capture, its decoded
// value, and a summary of what could not be used; and records into ROS 2 messages on decoded channels.
//
// It is the library behind `capture decode`: a Decoder is fed chunks as they are read (the input never has
// to fit in memory) and hands out Records; Decode drives one from an io.Reader, WriteMCAPJSON one per raw
// serial channel of an MCAP capture (package capture/mcapfile records and reads those; docs/capture.md).
//
// Decoded turns one raw stream into its decoded channels on a Sink. Each decoded channel is declared in its
// own file, channel_<name>.go (/imu, /battery, /joy, /wheel_twist, /scan), and every recorder writes them
// through Decoded: the segments and queue of capture/segment (the driver's --capture), the live tools of
// capture/live (record, tap) and replay. Nothing here reads a device or a clock.
//
// Accounting rule, checked by the tests: every input byte is in exactly one place,
//
//	Bytes == bytes of emitted records + SkippedBytes + PendingBytes
//
// where SkippedBytes are bytes the parser rejected while reading and PendingBytes are bytes at the end of the
// input that belong to no complete frame (a frame cut off by the end of the capture).
//
// End of input: the streaming parsers wait for a candidate frame's full claimed length. When a capture ends
// inside a false header (AA 55 inside a payload, claiming up to 255 bytes) real frames behind it would stay
// buffered forever. Close treats the end of input as final: it drops the undecidable candidate's first byte
// and parses the rest again, so those frames are still emitted. This is the only place the package goes
// beyond the codecs, and it uses them unchanged.
//
// JSON (one object per record, then a summary; field names are stable, snake_case):
//
//	{"kind":"board","offset":0,"size":8,"func":"sys","code":0,"len":3,"value":{"millivolts":7400,"volts":7.4}}
//	{"kind":"board",...,"func":"bus_servo","code":5,"len":3,"payload_hex":"010203","error":"..."}
//	{"kind":"lidar","offset":13,"size":85,"ring_start":false,"ct":0,"fsa_deg":44.5625,"lsa_deg":66.015625,
//	 "samples":25,"points":[{"angle_deg":44.5625,"dist_mm":83,"intensity":16},...]}
//	{"kind":"summary","input":"board","bytes":...,"frames":...,"bad_checksum":...,"unknown_func":...,
//	 "skipped_bytes":...,"pending_bytes":...,"bad_payload":...,"not_decoded":...,"by_func":{"imu":110}}
//
// Non-finite floats (a motor frame can carry a NaN: the decoder reports what was sent) are written as the
// JSON strings "NaN", "+Inf" and "-Inf", since JSON numbers cannot hold them.
package capture
