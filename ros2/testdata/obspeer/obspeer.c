/* A ROS 2 peer for the node's observability topics, with Cyclone DDS's own typed API and serializer (idlc
 * code of obs.idl): it subscribes as a Humble tool would (ros2 topic echo, rqt_console, rqt_robot_monitor,
 * tf2's listener) and prints one line per message:
 *   "rosout LEVEL NAME LINE|MSG"             rt/rosout (reliable, transient local, depth 1000)
 *   "diag LEVEL NAME|MESSAGE|HARDWARE_ID"    one per status of rt/diagnostics (reliable)
 *   "tf_static PARENT CHILD X Y Z QX QY QZ QW"  one per transform of rt/tf_static (reliable, transient local)
 *   "tf PARENT CHILD X Y"                    rt/tf
 * It ends at the end of stdin. ROS_DOMAIN_ID and CYCLONEDDS_URI from the environment. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "dds/dds.h"
#include "obs.h"

static dds_entity_t pp;

static dds_entity_t reader(const char *name, const dds_topic_descriptor_t *d, int tl, int depth) {
  dds_entity_t t = dds_create_topic(pp, d, name, NULL, NULL);
  if (t < 0) { fprintf(stderr, "obspeer: topic %s: %s\n", name, dds_strretcode(t)); exit(1); }
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
  dds_qset_durability(q, tl ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  dds_entity_t r = dds_create_reader(pp, t, q, NULL);
  dds_delete_qos(q);
  if (r < 0) { fprintf(stderr, "obspeer: reader %s: %s\n", name, dds_strretcode(r)); exit(1); }
  return r;
}

enum { R_LOG, R_DIAG, R_TFS, R_TF, NR };
static dds_entity_t rd[NR];

static void take_all(int which) {
  void *samples[32] = {0};
  dds_sample_info_t si[32];
  int n = dds_take(rd[which], samples, si, 32, 32);
  for (int i = 0; i < n; i++) {
    if (!si[i].valid_data) continue;
    switch (which) {
    case R_LOG: { rcl_interfaces_msg_dds__Log_ *m = samples[i];
      printf("rosout %u %s %u|%s\n", m->level, m->name, m->line, m->msg); break; }
    case R_DIAG: { diagnostic_msgs_msg_dds__DiagnosticArray_ *m = samples[i];
      for (uint32_t k = 0; k < m->status._length; k++) {
        diagnostic_msgs_msg_dds__DiagnosticStatus_ *s = &m->status._buffer[k];
        printf("diag %u %s|%s|%s\n", s->level, s->name, s->message, s->hardware_id);
      }
      break; }
    case R_TFS: case R_TF: { tf2_msgs_msg_dds__TFMessage_ *m = samples[i];
      for (uint32_t k = 0; k < m->transforms._length; k++) {
        geometry_msgs_msg_dds__TransformStamped_ *t = &m->transforms._buffer[k];
        geometry_msgs_msg_dds__Transform_ *x = &t->transform;
        if (which == R_TFS)
          printf("tf_static %s %s %.6f %.7f %.6f %.6f %.6f %.6f %.6f\n", t->header.frame_id, t->child_frame_id,
                 x->translation.x, x->translation.y, x->translation.z, x->rotation.x, x->rotation.y, x->rotation.z, x->rotation.w);
        else
          printf("tf %s %s %.4f %.4f\n", t->header.frame_id, t->child_frame_id, x->translation.x, x->translation.y);
      }
      break; }
    }
  }
  if (n > 0) dds_return_loan(rd[which], samples, n);
  fflush(stdout);
}

int main(void) {
  dds_qos_t *pq = dds_create_qos();
  dds_qset_userdata(pq, "enclave=/;", 10);
  const char *dom = getenv("ROS_DOMAIN_ID");
  pp = dds_create_participant(dom && *dom ? (dds_domainid_t) atoi(dom) : 0, pq, NULL);
  dds_delete_qos(pq);
  if (pp < 0) { fprintf(stderr, "obspeer: participant: %s\n", dds_strretcode(pp)); return 1; }
  rd[R_LOG] = reader("rt/rosout", &rcl_interfaces_msg_dds__Log__desc, 1, 1000);
  rd[R_DIAG] = reader("rt/diagnostics", &diagnostic_msgs_msg_dds__DiagnosticArray__desc, 0, 10);
  rd[R_TFS] = reader("rt/tf_static", &tf2_msgs_msg_dds__TFMessage__desc, 1, 1);
  rd[R_TF] = reader("rt/tf", &tf2_msgs_msg_dds__TFMessage__desc, 0, 100);
  dds_entity_t ws = dds_create_waitset(pp);
  for (int i = 0; i < NR; i++) dds_waitset_attach(ws, dds_create_readcondition(rd[i], DDS_ANY_STATE), i);
  printf("ready\n");
  fflush(stdout);
  for (;;) {
    struct pollfd pfd = {.fd = 0, .events = POLLIN};
    if (poll(&pfd, 1, 0) > 0) {
      char buf[256];
      if (read(0, buf, sizeof buf) <= 0) return 0;
    }
    dds_attach_t xs[NR];
    int n = dds_waitset_wait(ws, xs, NR, DDS_MSECS(5));
    for (int i = 0; i < n; i++) take_all((int) xs[i]);
  }
}
