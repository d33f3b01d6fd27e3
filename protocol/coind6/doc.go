// Package coind6 is a pure codec for the COIN-D6 LiDAR's serial stream (230400 baud, read-only, about
// 13.7 KB/s, 10 revolutions per second, about 401 samples per revolution): bytes in, packets and scans out,
// with no I/O, goroutines or clocks (times are parameters).
//
// The layout was worked out from captured bytes on the robot (chapter 14) and matches the YDLIDAR
// TOF "intensity" packet:
//
//	0-1  PH   AA 55
//	2    CT   bit 0 = this packet starts a revolution (it then carries one sample)
//	3    LSN  number of samples (25 in a normal packet)
//	4-5  FSA  first angle, (u16 >> 1) / 64 degrees
//	6-7  LSA  last angle; samples in between are evenly spaced, wrapping past 360
//	8-9  CS   XOR of the u16 words PH, CT|LSN<<8, FSA, LSA, each S0, each S2<<8|S1
//	10.. 3 bytes per sample: S0 intensity, distance mm = S2<<6 | S1>>2
//
// All 16-bit values are little-endian. Native angles run clockwise seen from above (chapter 14's floor test);
// the robot's forward is the LiDAR's 180 degrees (a transform with yaw pi, not this package's business).
//
// Errata and open points:
//   - The low 2 bits of S1 are unknown; Sample.Flags keeps them so that encode(decode(x)) == x.
//   - Bit 0 of FSA/LSA was 1 in every captured packet; the encoder sets it.
//   - AA 55 occurs inside sample bytes (2 of 526 headers in the first capture were false), so the Parser checks
//     every candidate and resynchronises by two bytes after a bad checksum.
package coind6
