/* An independent ROS 2 peer for ros2's tests: Cyclone DDS's own typed API and serializer (idlc code of
 * ros.idl), no code of ours. It plays a Humble node next to rosorin_board_driver:
 *   - prints what the node publishes, decoded by Cyclone: imu, battery, odom, gamepad, scan, state, and
 *     the node's entry on ros_discovery_info;
 *   - reads commands on stdin, one per line:
 *       twist VX VY WZ          publish one geometry_msgs/Twist on cmd_vel (reliable)
 *       twist2 VX VY WZ         the same from a second writer (a second publisher on the graph)
 *       estop 0|1               std_msgs/Bool on estop (reliable);  estop_be 0|1: best effort
 *       enable 0|1 / reset      call ~/enable (SetBool) / ~/reset_estop (Trigger) with the 16-byte header
 *       stops                   a new reader of ~/stops (reliable, transient local), up to 4: a second one
 *                               is a late joiner
 *       quit
 *   - prints one line per event on stdout: "ready", "imu SEC NSEC FRAME WZ AZ", "battery V PRESENT STATUS",
 *     "odom FRAME CHILD X VX", "joy NAXES NBUTTONS", "scan FRAME N", "state JSON", "node NS NAME NREAD NWRITE",
 *     "reply enable|reset SEQ SUCCESS MESSAGE", "matched cmd_vel N", "stops K JSON" (reader K from 1),
 *     "error TEXT".
 * Usage: peer NAMESPACE_PREFIX (e.g. "" or "/robot1"); ROS_DOMAIN_ID and CYCLONEDDS_URI from the environment.
 *
 * ROS 2 security (SROS2) as rmw_cyclonedds_cpp (Humble) sets it up: with ROS_SECURITY_ENABLE=true the participant
 * is enrolled in the enclave ROS_SECURITY_ENCLAVE_OVERRIDE (else "/") of ROS_SECURITY_KEYSTORE: the dds.sec.*
 * properties with file: URIs into <keystore>/enclaves/<enclave>, the plugins by their bare names
 * (dds_security_auth, _ac, _crypto: Debian's libddsc finds them in its libddsc0debian folder), user data
 * "enclave=<enclave>;". A participant Cyclone refuses is exit 1 (rcl's Enforce). A topic, reader or writer the
 * permissions do not grant is not an exit: the peer prints "refused topic|reader|writer NAME RETCODE" and goes
 * on without it (a twist, e-stop or service call on a refused writer is not sent). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros.h"

static dds_entity_t pp;
static char ns[256];
static int secure; /* ROS_SECURITY_ENABLE=true: refused entities are printed, not fatal */

static dds_qos_t *qos(int reliable, int transient_local, int depth) {
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_MSECS(100));
  dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  return q;
}

static dds_entity_t topic(const char *prefix, const char *name, const char *suffix, const dds_topic_descriptor_t *d) {
  char full[512];
  snprintf(full, sizeof full, "%s%s/%s%s", prefix, ns, name, suffix);
  if (strcmp(prefix, "") == 0) snprintf(full, sizeof full, "%s", name);
  dds_entity_t t = dds_create_topic(pp, d, full, NULL, NULL);
  if (t < 0 && secure) { printf("refused topic %s %s\n", full, dds_strretcode(t)); fflush(stdout); return t; }
  if (t < 0) { fprintf(stderr, "peer: topic %s: %s\n", full, dds_strretcode(t)); exit(1); }
  return t;
}

static char tname[512];
static const char *topic_name(dds_entity_t t) {
  if (dds_get_name(t, tname, sizeof tname) < 0) snprintf(tname, sizeof tname, "?");
  return tname;
}

static dds_entity_t reader(dds_entity_t t, int rel, int tl, int depth) {
  if (t < 0) return t; /* its topic was refused (printed) */
  dds_qos_t *q = qos(rel, tl, depth);
  dds_entity_t r = dds_create_reader(pp, t, q, NULL);
  dds_delete_qos(q);
  if (r < 0 && secure) { printf("refused reader %s %s\n", topic_name(t), dds_strretcode(r)); fflush(stdout); return r; }
  if (r < 0) { fprintf(stderr, "peer: reader: %s\n", dds_strretcode(r)); exit(1); }
  return r;
}

static dds_entity_t writer(dds_entity_t t, int rel, int tl, int depth) {
  if (t < 0) return t;
  dds_qos_t *q = qos(rel, tl, depth);
  dds_entity_t w = dds_create_writer(pp, t, q, NULL);
  dds_delete_qos(q);
  if (w < 0 && secure) { printf("refused writer %s %s\n", topic_name(t), dds_strretcode(w)); fflush(stdout); return w; }
  if (w < 0) { fprintf(stderr, "peer: writer: %s\n", dds_strretcode(w)); exit(1); }
  return w;
}

/* security puts SROS2's enclave into q as rmw_cyclonedds_cpp's configure_qos_for_security does and returns the
 * enclave name (user data), or NULL when ROS_SECURITY_ENABLE is not "true". */
static const char *security(dds_qos_t *q) {
  const char *en = getenv("ROS_SECURITY_ENABLE"), *ks = getenv("ROS_SECURITY_KEYSTORE");
  const char *enclave = getenv("ROS_SECURITY_ENCLAVE_OVERRIDE");
  if (en == NULL || strcmp(en, "true") != 0) return NULL;
  if (ks == NULL || *ks == 0) { fprintf(stderr, "peer: ROS_SECURITY_KEYSTORE not set\n"); exit(1); }
  if (enclave == NULL || *enclave == 0) enclave = "/";
  static const char *files[][2] = {
    {"dds.sec.auth.identity_ca", "identity_ca.cert.pem"}, {"dds.sec.auth.identity_certificate", "cert.pem"},
    {"dds.sec.auth.private_key", "key.pem"}, {"dds.sec.access.permissions_ca", "permissions_ca.cert.pem"},
    {"dds.sec.access.governance", "governance.p7s"}, {"dds.sec.access.permissions", "permissions.p7s"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char uri[1024];
    snprintf(uri, sizeof uri, "file:%s/enclaves%s/%s", ks, strcmp(enclave, "/") == 0 ? "" : enclave, files[i][1]);
    dds_qset_prop(q, files[i][0], uri);
  }
  static const char *libs[][2] = {
    {"dds.sec.auth.library.path", "dds_security_auth"}, {"dds.sec.auth.library.init", "init_authentication"},
    {"dds.sec.auth.library.finalize", "finalize_authentication"},
    {"dds.sec.crypto.library.path", "dds_security_crypto"}, {"dds.sec.crypto.library.init", "init_crypto"},
    {"dds.sec.crypto.library.finalize", "finalize_crypto"},
    {"dds.sec.access.library.path", "dds_security_ac"}, {"dds.sec.access.library.init", "init_access_control"},
    {"dds.sec.access.library.finalize", "finalize_access_control"},
  };
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) dds_qset_prop(q, libs[i][0], libs[i][1]);
  return enclave;
}

enum { R_IMU, R_BAT, R_ODOM, R_JOY, R_SCAN, R_STATE, R_DISC, R_ENABLE, R_RESET, R_STOPS, NR = R_STOPS + 4 };
static dds_entity_t rd[NR];
static dds_entity_t ws;
static dds_entity_t w_twist, w_twist2, w_estop, w_estop_be, w_enable, w_reset;
static uint64_t id_enable, id_reset;
static int64_t seq;

static void take_all(int which) {
  void *samples[16] = {0};
  dds_sample_info_t si[16];
  int n = dds_take(rd[which], samples, si, 16, 16);
  for (int i = 0; i < n; i++) {
    if (!si[i].valid_data) continue;
    void *s = samples[i];
    switch (which) {
    case R_IMU: { sensor_msgs_msg_dds__Imu_ *m = s;
      printf("imu %d %u %s %.6f %.6f %.1f\n", m->header.stamp.sec, m->header.stamp.nanosec, m->header.frame_id,
             m->angular_velocity.z, m->linear_acceleration.z, m->orientation_covariance[0]); break; }
    case R_BAT: { sensor_msgs_msg_dds__BatteryState_ *m = s;
      printf("battery %.3f %d %u\n", m->voltage, m->present, m->power_supply_status); break; }
    case R_ODOM: { nav_msgs_msg_dds__Odometry_ *m = s;
      printf("odom %s %s %.4f %.4f\n", m->header.frame_id, m->child_frame_id, m->pose.pose.position.x, m->twist.twist.linear.x); break; }
    case R_JOY: { sensor_msgs_msg_dds__Joy_ *m = s; printf("joy %u %u\n", m->axes._length, m->buttons._length); break; }
    case R_SCAN: { sensor_msgs_msg_dds__LaserScan_ *m = s; printf("scan %s %u\n", m->header.frame_id, m->ranges._length); break; }
    case R_STATE: { std_msgs_msg_dds__String_ *m = s; printf("state %s\n", m->data); break; }
    case R_DISC: { rmw_dds_common_msg_dds__ParticipantEntitiesInfo_ *m = s;
      for (uint32_t k = 0; k < m->node_entities_info_seq._length; k++) {
        rmw_dds_common_msg_dds__NodeEntitiesInfo_ *e = &m->node_entities_info_seq._buffer[k];
        printf("node %s %s %u %u\n", e->node_namespace, e->node_name, e->reader_gid_seq._length, e->writer_gid_seq._length);
      }
      break; }
    case R_ENABLE: { std_srvs_srv_dds__SetBool_Response_ *m = s;
      if (m->client_id == id_enable) { printf("reply enable %lld %d %s\n", (long long) m->seq, m->success, m->message); }
      break; }
    case R_RESET: { std_srvs_srv_dds__Trigger_Response_ *m = s;
      if (m->client_id == id_reset) { printf("reply reset %lld %d %s\n", (long long) m->seq, m->success, m->message); }
      break; }
    default: { std_msgs_msg_dds__String_ *m = s; printf("stops %d %s\n", which - R_STOPS + 1, m->data); break; }
    }
  }
  if (n > 0) dds_return_loan(rd[which], samples, n);
  fflush(stdout);
}

/* service_ready waits (up to 3 s) until the server's request reader and reply writer are matched, as
 * rmw_service_server_is_available does before ros2 service call sends. */
static int service_ready(dds_entity_t req_writer, dds_entity_t rep_reader) {
  for (int i = 0; i < 300; i++) {
    dds_publication_matched_status_t a;
    dds_subscription_matched_status_t b;
    if (dds_get_publication_matched_status(req_writer, &a) == 0 && dds_get_subscription_matched_status(rep_reader, &b) == 0 &&
        a.current_count > 0 && b.current_count > 0)
      return 1;
    dds_sleepfor(DDS_MSECS(10));
  }
  printf("error service not available\n");
  return 0;
}

static void command(char *line) {
  double x, y, z; int b;
  /* twist2 first: "twist %lf" also matches "twist2 0.1 0 0" (x = 2, y = 0.1). */
  if (sscanf(line, "twist2 %lf %lf %lf", &x, &y, &z) == 3 || sscanf(line, "twist %lf %lf %lf", &x, &y, &z) == 3) {
    geometry_msgs_msg_dds__Twist_ m = {.linear = {.x = x, .y = y}, .angular = {.z = z}};
    dds_write(strncmp(line, "twist2", 6) == 0 ? w_twist2 : w_twist, &m);
  } else if (sscanf(line, "estop_be %d", &b) == 1) {
    std_msgs_msg_dds__Bool_ m = {.data = b != 0}; dds_write(w_estop_be, &m);
  } else if (sscanf(line, "estop %d", &b) == 1) {
    std_msgs_msg_dds__Bool_ m = {.data = b != 0}; dds_write(w_estop, &m);
  } else if (sscanf(line, "enable %d", &b) == 1) {
    if (!service_ready(w_enable, rd[R_ENABLE])) return;
    std_srvs_srv_dds__SetBool_Request_ m = {.client_id = id_enable, .seq = ++seq, .data = b != 0}; dds_write(w_enable, &m);
  } else if (strncmp(line, "reset", 5) == 0) {
    if (!service_ready(w_reset, rd[R_RESET])) return;
    std_srvs_srv_dds__Trigger_Request_ m = {.client_id = id_reset, .seq = ++seq}; dds_write(w_reset, &m);
  } else if (strncmp(line, "stops", 5) == 0) {
    /* Made on demand: the other tests' peers have no ~/stops reader. */
    int k = R_STOPS;
    while (k < NR && rd[k] >= 0) k++;
    if (k == NR) { printf("error too many stops readers\n"); return; }
    rd[k] = reader(topic("rt", "rosorin_board_driver/stops", "", &std_msgs_msg_dds__String__desc), 1, 1, 10);
    if (rd[k] >= 0) dds_waitset_attach(ws, dds_create_readcondition(rd[k], DDS_ANY_STATE), k);
  } else if (strncmp(line, "quit", 4) == 0) {
    /* As a ROS node shuts down: its participant deleted, so the others see its endpoints go at once (an exit
     * without it leaves them to the lease: 10 s). */
    dds_delete(pp);
    exit(0);
  } else {
    printf("error unknown command %s", line);
  }
}

int main(int argc, char **argv) {
  snprintf(ns, sizeof ns, "%s", argc > 1 ? argv[1] : "");
  dds_qos_t *pq = dds_create_qos();
  const char *enclave = security(pq);
  secure = enclave != NULL;
  char ud[600];
  snprintf(ud, sizeof ud, "enclave=%s;", secure ? enclave : "/");
  dds_qset_userdata(pq, ud, strlen(ud));
  const char *dom = getenv("ROS_DOMAIN_ID");
  pp = dds_create_participant(dom && *dom ? (dds_domainid_t) atoi(dom) : 0, pq, NULL);
  dds_delete_qos(pq);
  if (pp < 0) { fprintf(stderr, "peer: participant: %s\n", dds_strretcode(pp)); return 1; }
  /* Readers as a Humble subscriber would make them: sensor data best effort, the rest reliable. */
  rd[R_IMU] = reader(topic("rt", "imu/data_raw", "", &sensor_msgs_msg_dds__Imu__desc), 0, 0, 200);
  rd[R_BAT] = reader(topic("rt", "battery", "", &sensor_msgs_msg_dds__BatteryState__desc), 1, 0, 10);
  rd[R_ODOM] = reader(topic("rt", "wheel/odom", "", &nav_msgs_msg_dds__Odometry__desc), 1, 0, 50);
  rd[R_JOY] = reader(topic("rt", "gamepad", "", &sensor_msgs_msg_dds__Joy__desc), 1, 0, 10);
  rd[R_SCAN] = reader(topic("rt", "scan", "", &sensor_msgs_msg_dds__LaserScan__desc), 0, 0, 5);
  rd[R_STATE] = reader(topic("rt", "rosorin_board_driver/state", "", &std_msgs_msg_dds__String__desc), 1, 1, 1);
  rd[R_DISC] = reader(topic("", "ros_discovery_info", "", &rmw_dds_common_msg_dds__ParticipantEntitiesInfo__desc), 1, 1, 10);
  rd[R_ENABLE] = reader(topic("rr", "rosorin_board_driver/enable", "Reply", &std_srvs_srv_dds__SetBool_Response__desc), 1, 0, 10);
  rd[R_RESET] = reader(topic("rr", "rosorin_board_driver/reset_estop", "Reply", &std_srvs_srv_dds__Trigger_Response__desc), 1, 0, 10);
  for (int i = R_STOPS; i < NR; i++) rd[i] = -1;
  dds_entity_t t_twist = topic("rt", "cmd_vel", "", &geometry_msgs_msg_dds__Twist__desc);
  /* cmd_vel writers are made at the first twist: until then this peer is no publisher on the graph. */
  w_twist = w_twist2 = -1;
  dds_entity_t t_estop = topic("rt", "estop", "", &std_msgs_msg_dds__Bool__desc);
  w_estop = writer(t_estop, 1, 0, 10);
  w_estop_be = writer(t_estop, 0, 0, 10);
  w_enable = writer(topic("rq", "rosorin_board_driver/enable", "Request", &std_srvs_srv_dds__SetBool_Request__desc), 1, 0, 10);
  w_reset = writer(topic("rq", "rosorin_board_driver/reset_estop", "Request", &std_srvs_srv_dds__Trigger_Request__desc), 1, 0, 10);
  /* rmw_cyclonedds' client id: the request writer's instance handle. */
  if (w_enable >= 0) dds_get_instance_handle(w_enable, &id_enable);
  if (w_reset >= 0) dds_get_instance_handle(w_reset, &id_reset);

  ws = dds_create_waitset(pp);
  for (int i = 0; i < NR; i++)
    if (rd[i] >= 0) dds_waitset_attach(ws, dds_create_readcondition(rd[i], DDS_ANY_STATE), i);
  printf("ready\n");
  fflush(stdout);
  char line[512];
  size_t have = 0;
  int last_matched = -1, tried_twist = 0, tried_twist2 = 0;
  for (;;) {
    struct pollfd pfd = {.fd = 0, .events = POLLIN};
    if (poll(&pfd, 1, 0) > 0) {
      ssize_t n = read(0, line + have, sizeof line - 1 - have);
      if (n <= 0) return 0;
      have += (size_t) n;
      line[have] = 0;
      char *nl;
      while ((nl = strchr(line, '\n')) != NULL) {
        *nl = 0;
        /* Made once: a refused writer is printed once and its twists are not sent. */
        if (strncmp(line, "twist2", 6) == 0 && !tried_twist2) { tried_twist2 = 1; w_twist2 = writer(t_twist, 1, 0, 10); }
        else if (strncmp(line, "twist ", 6) == 0 && !tried_twist) { tried_twist = 1; w_twist = writer(t_twist, 1, 0, 10); }
        command(line);
        size_t used = (size_t) (nl + 1 - line);
        memmove(line, nl + 1, have - used + 1);
        have -= used;
      }
      fflush(stdout);
    }
    dds_attach_t xs[NR];
    int n = dds_waitset_wait(ws, xs, NR, DDS_MSECS(2));
    for (int i = 0; i < n; i++) take_all((int) xs[i]);
    dds_publication_matched_status_t st;
    if (w_twist >= 0 && dds_get_publication_matched_status(w_twist, &st) == 0 && (int) st.current_count != last_matched) {
      last_matched = (int) st.current_count;
      printf("matched cmd_vel %d\n", last_matched);
      fflush(stdout);
    }
  }
}
