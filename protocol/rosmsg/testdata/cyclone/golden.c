/* Prints, one line per case, the plain-CDR serialization (header included) that Cyclone DDS's own serializer
 * (dds_stream_writeLE with the idlc-generated ops of ros.idl) produces for the samples of
 * protocol/rosmsg's golden table: "name<TAB>hex". TestGoldenMatchesCyclone builds and runs it and compares. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "ros.h"

#define CDR_XCDR1 1

static void emit(const char *name, const void *sample, const dds_topic_descriptor_t *desc) {
  dds_ostreamLE_t os;
  dds_ostreamLE_init(&os, 0, CDR_XCDR1);
  dds_stream_writeLE(&os, sample, desc->m_ops);
  printf("%s\t000100", name);
  printf("00");
  for (uint32_t i = 0; i < os.x.m_index; i++) printf("%02x", os.x.m_buffer[i]);
  printf("\n");
  dds_ostreamLE_fini(&os);
}

int main(void) {
  { std_msgs_msg_Bool m = {.data = true}; emit("Bool true", &m, &std_msgs_msg_Bool_desc); }
  { std_msgs_msg_String_ m = {.data = "hi"}; emit("String", &m, &std_msgs_msg_String__desc); }
  { std_msgs_msg_String_ m = {.data = ""}; emit("String empty", &m, &std_msgs_msg_String__desc); }
  { geometry_msgs_msg_Twist m = {.linear = {.x = 0.2}, .angular = {.z = 1.0}};
    emit("Twist 0.2 forward, 1 rad/s", &m, &geometry_msgs_msg_Twist_desc); }
  { std_srvs_srv_SetBool_Request m = {.data = true}; emit("SetBool request", &m, &std_srvs_srv_SetBool_Request_desc); }
  { std_srvs_srv_SetBool_Response m = {.success = true, .message = "ok"};
    emit("SetBool response", &m, &std_srvs_srv_SetBool_Response_desc); }
  { std_srvs_srv_Trigger_Request m = {0}; emit("Trigger request", &m, &std_srvs_srv_Trigger_Request_desc); }
  { std_srvs_srv_Trigger_Response m = {.success = false, .message = "latched"};
    emit("Trigger response", &m, &std_srvs_srv_Trigger_Response_desc); }
  { float axes[] = {0.5f}; int32_t buttons[] = {1, -1};
    sensor_msgs_msg_Joy m = {.header = {.stamp = {1, 2}, .frame_id = "j"},
      .axes = {._length = 1, ._maximum = 1, ._buffer = axes}, .buttons = {._length = 2, ._maximum = 2, ._buffer = buttons}};
    emit("Joy", &m, &sensor_msgs_msg_Joy_desc); }
  { sensor_msgs_msg_Imu m; memset(&m, 0, sizeof m);
    m.header.stamp.sec = 1; m.header.stamp.nanosec = 2; m.header.frame_id = "imu_link";
    m.orientation.w = 1; m.orientation_covariance[0] = -1; m.angular_velocity.z = 0.5; m.linear_acceleration.z = 9.81;
    emit("Imu", &m, &sensor_msgs_msg_Imu_desc); }
  { float ranges[] = {1, 2.5f};
    sensor_msgs_msg_LaserScan m = {.header = {.frame_id = "laser"}, .angle_min = -3.14f, .angle_max = 3.14f,
      .angle_increment = 0.0157f, .scan_time = 0.1f, .range_min = 0.12f, .range_max = 8,
      .ranges = {._length = 2, ._maximum = 2, ._buffer = ranges}};
    emit("LaserScan", &m, &sensor_msgs_msg_LaserScan_desc); }
  { sensor_msgs_msg_BatteryState m; memset(&m, 0, sizeof m);
    m.header.frame_id = ""; m.voltage = 11.9f; m.temperature = m.current = m.charge = m.capacity = m.design_capacity = NAN;
    m.percentage = 0.6f; m.power_supply_status = 2; m.power_supply_technology = 2; m.present = true;
    m.location = ""; m.serial_number = "";
    emit("BatteryState", &m, &sensor_msgs_msg_BatteryState_desc); }
  { nav_msgs_msg_Odometry m; memset(&m, 0, sizeof m);
    m.header.frame_id = "odom"; m.child_frame_id = "base_link"; m.pose.pose.position.x = 1.5;
    m.pose.pose.orientation.w = 1; m.twist.twist.linear.x = 0.2;
    emit("Odometry", &m, &nav_msgs_msg_Odometry_desc); }
  { rmw_dds_common_msg_Gid gid = {.data = {1, 0x0f, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
    rmw_dds_common_msg_NodeEntitiesInfo node = {.node_namespace = "/", .node_name = "rosorin_board_driver",
      .reader_gid_seq = {._length = 1, ._maximum = 1, ._buffer = &gid}};
    rmw_dds_common_msg_ParticipantEntitiesInfo m = {.gid = gid,
      .node_entities_info_seq = {._length = 1, ._maximum = 1, ._buffer = &node}};
    emit("ParticipantEntitiesInfo", &m, &rmw_dds_common_msg_ParticipantEntitiesInfo_desc); }
  { geometry_msgs_msg_TwistStamped m = {.header = {.stamp = {3, 4}, .frame_id = "base_link"},
      .twist = {.linear = {.x = 0.2}, .angular = {.z = -1.0}}};
    emit("TwistStamped", &m, &geometry_msgs_msg_TwistStamped_desc); }
  return 0;
}
