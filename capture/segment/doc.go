// Package segment is the recording layer of long-running processes and the live capture tools: Segments
// writes a rotating series of crash-safe mcapfile recordings (a new one by size or age, the oldest deleted
// past a count or a total size, the .part files a killed run left recovered at start), File one recording at
// a named path, and Queue feeds either from the goroutines that own a port without ever making them wait
// for the disk, decoding every raw channel into its decoded channels (capture.Decoded) in its own writer
// goroutine. ParseKeep and ParseSize read the --capture-keep and --capture-size flags.
//
// Figures and the reasons: docs/capture.md, "Recording by the driver".
package segment
