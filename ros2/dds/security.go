package dds

// Property is a participant QoS property (name, value): for DDS Security the dds.sec.* properties that enrol
// the participant (ros2/sros2's Enclave.Properties makes them from an SROS2 enclave).
type Property struct{ Name, Value string }
