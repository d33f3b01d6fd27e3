// Package live holds the capture tools that touch a live device: RecordSerial (`capture record`, passive:
// read-only with a shared lock, so it never takes a port from its owner) and Tap (`capture tap`, a pty
// man-in-the-middle that owns the device and records both directions), both recording through a
// segment.Queue into one file with its decoded channels; OpenPTY is the pty that tap and package replay
// publish. The driver never links it. docs/capture.md has the commands and their figures.
package live
