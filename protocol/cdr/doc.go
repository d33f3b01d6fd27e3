// Package cdr is a pure codec for the plain CDR that ROS 2 Humble puts on the wire through rmw_cyclonedds and
// into rosbag2 MCAP files (message encoding "cdr"): bytes in, values out, no I/O.
//
// Spec: OMG CDR as in DDS-XTypes 1.3 section 7.4.3 (XCDR version 1, "plain CDR"): a 4-byte encapsulation
// header (00 01 00 00 little endian, 00 00 00 00 big endian; the last two bytes are options, ignored on read),
// then the body, where every primitive is aligned to its own size (8 for 64-bit values) counted from the first
// byte after the header. A string is a uint32 length that counts the terminating NUL, the bytes and the NUL; a
// sequence is a uint32 element count and the elements; a fixed array is its elements. Humble's types are
// final and key-less, so there are no member headers (no XCDR2, no DHEADER).
//
// Errata and choices: a length larger than the bytes left is an error before anything is allocated (a hostile
// 0xffffffff never allocates 4 GiB); a string without its NUL, or with a NUL inside, is an error (ROS strings
// cannot hold one); XCDR2 encapsulations (00 06, 00 07, ...) are refused by name, not misread.
package cdr
