/* A short-lived ROS 2 process on Cyclone DDS's own typed API (idlc code of ros.idl), as an operator's tools
 * make one: a new participant, one endpoint, one message, exit.
 *
 *   oneshot estop tl|volatile|be KEEPALIVE_MS [0|1]
 *       `ros2 topic pub --once /estop std_msgs/msg/Bool '{data: true}'` in Humble (tl: reliable,
 *       transient-local, keep last 1) or an rclpy/rclcpp publisher with the default profile (volatile:
 *       reliable, volatile, keep last 10) or a best-effort one (be): waits until the writer has matched a
 *       subscription, writes once (prints "wrote SEC NSEC", CLOCK_REALTIME just before the write), stays
 *       KEEPALIVE_MS, deletes its participant and exits 0. No match within 10 s: "error ...", exit 2.
 *   oneshot call enable 0|1 | oneshot call reset
 *       `ros2 service call`: waits for the service (request reader and reply writer matched, as
 *       rmw_service_server_is_available), sends one request with rmw_cyclonedds' 16-byte header, waits up to
 *       5 s for its reply: prints "reply SUCCESS MESSAGE" and exits 0, or "error ..." and exits 2.
 *
 * NAMESPACE comes from ROSORIN_NS ("" or "/robot1"); ROS_DOMAIN_ID and CYCLONEDDS_URI from the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "dds/dds.h"
#include "ros.h"

static dds_entity_t pp;

static dds_qos_t *qos(int reliable, int transient_local, int depth) {
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_MSECS(100));
  dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  return q;
}

static dds_entity_t topic(const char *name, const dds_topic_descriptor_t *d) {
  dds_entity_t t = dds_create_topic(pp, d, name, NULL, NULL);
  if (t < 0) { printf("error topic %s: %s\n", name, dds_strretcode(t)); exit(1); }
  return t;
}

static int fail(const char *what) {
  printf("error %s\n", what);
  fflush(stdout);
  dds_delete(pp);
  return 2;
}

static int estop(int argc, char **argv) {
  if (argc < 4) return fail("usage: oneshot estop tl|volatile|be KEEPALIVE_MS [0|1]");
  int rel = 1, tl = 0, depth = 10;
  if (strcmp(argv[2], "tl") == 0) { tl = 1; depth = 1; }
  else if (strcmp(argv[2], "be") == 0) rel = 0;
  else if (strcmp(argv[2], "volatile") != 0) return fail("qos must be tl, volatile or be");
  int keep = atoi(argv[3]);
  int value = argc > 4 ? atoi(argv[4]) : 1;
  char name[300];
  const char *ns = getenv("ROSORIN_NS");
  snprintf(name, sizeof name, "rt%s/estop", ns ? ns : "");
  dds_qos_t *q = qos(rel, tl, depth);
  dds_entity_t w = dds_create_writer(pp, topic(name, &std_msgs_msg_dds__Bool__desc), q, NULL);
  dds_delete_qos(q);
  if (w < 0) return fail("writer");
  for (int i = 0;; i++) {
    dds_publication_matched_status_t st;
    if (dds_get_publication_matched_status(w, &st) == 0 && st.current_count > 0) break;
    if (i >= 10000) return fail("no subscription matched on estop in 10 s");
    dds_sleepfor(DDS_MSECS(1));
  }
  std_msgs_msg_dds__Bool_ m = {.data = value != 0};
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  dds_return_t rc = dds_write(w, &m);
  if (rc < 0) return fail(dds_strretcode(rc));
  printf("wrote %lld %ld\n", (long long) ts.tv_sec, ts.tv_nsec);
  fflush(stdout);
  dds_sleepfor(DDS_MSECS(keep));
  /* ONESHOT_ABRUPT=1: exit without deleting anything, as a killed or crashed process would (no writer
   * linger: whatever is not acknowledged by then is never retransmitted). */
  if (getenv("ONESHOT_ABRUPT") && atoi(getenv("ONESHOT_ABRUPT")) == 1) _exit(0);
  dds_delete(pp);
  return 0;
}

static int call(int argc, char **argv) {
  if (argc < 3) return fail("usage: oneshot call enable 0|1 | reset");
  int enable = strcmp(argv[2], "enable") == 0;
  if (!enable && strcmp(argv[2], "reset") != 0) return fail("service must be enable or reset");
  const char *ns = getenv("ROSORIN_NS");
  char rq[300], rr[300];
  snprintf(rq, sizeof rq, "rq%s/rosorin_board_driver/%sRequest", ns ? ns : "", enable ? "enable" : "reset_estop");
  snprintf(rr, sizeof rr, "rr%s/rosorin_board_driver/%sReply", ns ? ns : "", enable ? "enable" : "reset_estop");
  dds_qos_t *q = qos(1, 0, 10);
  dds_entity_t w = dds_create_writer(pp, topic(rq, enable ? &std_srvs_srv_dds__SetBool_Request__desc : &std_srvs_srv_dds__Trigger_Request__desc), q, NULL);
  dds_entity_t r = dds_create_reader(pp, topic(rr, enable ? &std_srvs_srv_dds__SetBool_Response__desc : &std_srvs_srv_dds__Trigger_Response__desc), q, NULL);
  dds_delete_qos(q);
  if (w < 0 || r < 0) return fail("endpoints");
  for (int i = 0;; i++) {
    dds_publication_matched_status_t a;
    dds_subscription_matched_status_t b;
    if (dds_get_publication_matched_status(w, &a) == 0 && dds_get_subscription_matched_status(r, &b) == 0 &&
        a.current_count > 0 && b.current_count > 0)
      break;
    if (i >= 10000) return fail("service not available in 10 s");
    dds_sleepfor(DDS_MSECS(1));
  }
  uint64_t id;
  dds_get_instance_handle(w, &id);
  dds_return_t rc;
  if (enable) {
    std_srvs_srv_dds__SetBool_Request_ m = {.client_id = id, .seq = 1, .data = argc > 3 && atoi(argv[3]) != 0};
    rc = dds_write(w, &m);
  } else {
    std_srvs_srv_dds__Trigger_Request_ m = {.client_id = id, .seq = 1};
    rc = dds_write(w, &m);
  }
  if (rc < 0) return fail(dds_strretcode(rc));
  dds_entity_t ws = dds_create_waitset(pp);
  dds_waitset_attach(ws, dds_create_readcondition(r, DDS_ANY_STATE), 0);
  dds_time_t deadline = dds_time() + DDS_SECS(5);
  while (dds_time() < deadline) {
    dds_waitset_wait_until(ws, NULL, 0, deadline);
    void *samples[4] = {0};
    dds_sample_info_t si[4];
    int n = dds_take(r, samples, si, 4, 4);
    for (int i = 0; i < n; i++) {
      if (!si[i].valid_data) continue;
      /* SetBool_Response_ and Trigger_Response_ share their layout (id, seq, success, message). */
      std_srvs_srv_dds__Trigger_Response_ *m = samples[i];
      if (m->client_id == id && m->seq == 1) {
        printf("reply %d %s\n", m->success, m->message);
        fflush(stdout);
        dds_return_loan(r, samples, n);
        dds_delete(pp);
        return 0;
      }
    }
    if (n > 0) dds_return_loan(r, samples, n);
  }
  return fail("no reply in 5 s");
}

int main(int argc, char **argv) {
  dds_qos_t *pq = dds_create_qos();
  dds_qset_userdata(pq, "enclave=/;", 10);
  const char *dom = getenv("ROS_DOMAIN_ID");
  pp = dds_create_participant(dom && *dom ? (dds_domainid_t) atoi(dom) : 0, pq, NULL);
  dds_delete_qos(pq);
  if (pp < 0) { printf("error participant: %s\n", dds_strretcode(pp)); return 1; }
  if (argc > 1 && strcmp(argv[1], "estop") == 0) return estop(argc, argv);
  if (argc > 1 && strcmp(argv[1], "call") == 0) return call(argc, argv);
  return fail("usage: oneshot estop tl|volatile|be KEEPALIVE_MS [0|1] | oneshot call enable 0|1 | oneshot call reset");
}
