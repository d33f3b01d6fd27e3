/* Prints the plain-CDR serialization Cyclone DDS's own serializer gives the samples of protocol/rosmsg's
 * goldenObs table (obs_test.go), one "name<TAB>hex" line each, as golden.c does for the golden table. */
#include <stdio.h>
#include <string.h>
#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "obs.h"

#define CDR_XCDR1 1

static void emit(const char *name, const void *sample, const dds_topic_descriptor_t *desc) {
  dds_ostreamLE_t os;
  dds_ostreamLE_init(&os, 0, CDR_XCDR1);
  dds_stream_writeLE(&os, sample, desc->m_ops);
  printf("%s\t00010000", name);
  for (uint32_t i = 0; i < os.x.m_index; i++) printf("%02x", os.x.m_buffer[i]);
  printf("\n");
  dds_ostreamLE_fini(&os);
}

int main(void) {
  { rcl_interfaces_msg_Log m = {.stamp = {5, 6}, .level = 30, .name = "rosorin_board_driver",
      .msg = "E-STOP latched", .file = "gate.go", .function = "driver.latch", .line = 42};
    emit("Log", &m, &rcl_interfaces_msg_Log_desc); }
  { diagnostic_msgs_msg_KeyValue kv[] = {{.key = "frames", .value = "12"}, {.key = "", .value = "x"}};
    diagnostic_msgs_msg_DiagnosticStatus st[] = {
      {.level = 2, .name = "rosorin_board_driver: gate", .message = "e-stop", .hardware_id = "rosorin-board",
       .values = {._length = 2, ._maximum = 2, ._buffer = kv}},
      {.level = 0, .name = "b", .message = "", .hardware_id = ""}};
    diagnostic_msgs_msg_DiagnosticArray m = {.header = {.stamp = {1, 2}, .frame_id = ""},
      .status = {._length = 2, ._maximum = 2, ._buffer = st}};
    emit("DiagnosticArray", &m, &diagnostic_msgs_msg_DiagnosticArray_desc); }
  { geometry_msgs_msg_TransformStamped ts[] = {
      {.header = {.stamp = {0, 0}, .frame_id = "base_link"}, .child_frame_id = "laser",
       .transform = {.translation = {0.048156, 0.0000756, 0.106748}, .rotation = {0, 0, 1, 0}}},
      {.header = {.stamp = {3, 4}, .frame_id = "odom"}, .child_frame_id = "b",
       .transform = {.translation = {1, 2, 0}, .rotation = {0, 0, 0, 1}}}};
    tf2_msgs_msg_TFMessage m = {.transforms = {._length = 2, ._maximum = 2, ._buffer = ts}};
    emit("TFMessage", &m, &tf2_msgs_msg_TFMessage_desc); }
  return 0;
}
