// Package dds is a small layer over Eclipse Cyclone DDS's C library (libddsc 0.10.2, Debian's cyclonedds-dev,
// the release line ROS 2 Humble's rmw_cyclonedds_cpp uses) that sends and takes pre-serialized plain CDR:
// the Go side encodes and decodes with protocol/cdr and protocol/rosmsg, Cyclone only carries bytes.
//
// It registers an opaque sertype per type name (dds_create_topic_sertype) whose serdata is a byte buffer, as
// rmw_cyclonedds' serdata.cpp does, and writes with dds_writecdr and takes with dds_takecdr. Cyclone never
// interprets the bytes, so malformed data from the graph reaches the caller, who counts and drops it (a
// validating sertype would drop it silently inside Cyclone). Types are key-less and carry no type
// information (Humble's rmw_cyclonedds registers none either): endpoints match on topic and type name.
//
// Build: the cgo layer is behind the build tag ros2 (`go build -tags ros2`, needs cyclonedds-dev and a C
// compiler, Linux). Without the tag every constructor returns ErrNotBuilt, which says how to build; the
// default build needs nothing but Go.
//
// Network: Cyclone reads CYCLONEDDS_URI itself. Tests pin it to 127.0.0.1 (LoopbackConfig); ROS_LOCALHOST_ONLY=1
// does the same for NewParticipant, as rmw_cyclonedds does.
//
// Errata (0.10.2): a volatile reader skips a new non-Cyclone writer's samples up to the last one of its
// first heartbeat (QoS.CatchUp works around it through the internal reader); Cyclone sends a sample's size rounded up to 4
// (buffers are padded with zeros); sockets bind 0.0.0.0 and are inherited by child processes. Reliable writers
// block at most 100 ms on a full history (max_blocking_time) and keep-last histories overwrite, so a slow
// reader never blocks a caller for long.
package dds
