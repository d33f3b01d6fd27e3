// Package stoplog is the driver's stop log (issue 35): a durable, append-only file of the stops the driver
// made, one api.StopRecord per stop, in the state directory's stops/ folder. The driver appends; readers
// (`rosorin-base stops`, `stopproof report --history`) call Read.
//
// Format. The folder holds segment files stops-000001.jsonl, stops-000002.jsonl, ... (numbers only grow;
// the width grows past 999999). Each line is one record and checks itself:
//
//	1f0c6a2e {"seq":41,"boot":"...","wall":"...","kind":"estop",...}
//
// eight lowercase hex digits of the CRC-32C (Castagnoli) of the JSON payload, a space, the payload (the
// api.StopRecord's JSON, with no newline in it), a newline. So a bit flip anywhere in a line is detected, not
// only a torn tail. Seq counts from 1 across restarts (the highest seq found + 1). A segment is closed when
// the next line would take it past Options.SegmentSize (1 MiB) and the oldest segments past
// Options.MaxSegments (16) are removed: the log keeps the last 16 MiB of stops.
//
// Writing. Append encodes the record, assigns its seq and queues it; it never waits for the disk. A writer
// goroutine writes the queue BatchDelay (200 ms) after the first record of a batch, in one write(2) per
// segment to a file opened O_APPEND, then fsyncs; a segment's creation and a removal are followed by an
// fsync of the folder. Flush writes and fsyncs at once and waits; Close flushes. A queue of MaxQueue (1024)
// records bounds what waits for a stuck disk: past it Append drops the record and counts it (Stats.Dropped,
// Stats.Err), and the dropped seq leaves a gap in the log. A failed batch stays queued and is tried again
// after RetryDelay (1 s), in a new segment, so a partly written line is never continued.
//
// The durability promise. A record is on disk once a Flush (or Close) that began after its Append returned
// nil, or once Stats.Written counts it. Records accepted but not yet written when the process dies (a
// SIGKILL, a crash) are lost: the exposure window is BatchDelay after a record's Append. A record written
// survives the death of the process; fsync is what keeps it across a power cut as well (this package's tests
// prove the first with a real SIGKILL, not the second).
//
// Reading. Open and Read never fail on content: a line that is torn, damaged (checksum mismatch) or not a
// stop record is skipped and named in Recovery.Bad (file, line, byte offset, why), and every good line around
// it is kept. Open cuts a torn last line off the newest segment (and fsyncs it), so the next record starts on
// a line of its own; Read only reads. Only a folder that cannot be made or listed is an error.
//
// Errata:
//   - A batch whose write went through but whose fsync failed is written again: its records may be in the
//     log twice. Readers keep the first and count the others (Recovery.Repeated).
//   - A damaged line that ends with its newline is not cut: it stays in its segment, named at every Open,
//     until retention removes the segment.
//   - Segments are whole files read into memory: a stray huge file named like a segment is read whole.
package stoplog
