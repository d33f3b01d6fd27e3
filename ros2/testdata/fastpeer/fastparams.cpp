/* What a Fast DDS user (Humble's default RMW) does for the node's parameters, since the parameter services do
 * not interoperate between rmw_fastrtps and rmw_cyclonedds (docs/ros2.md, "Parameters"): read the running values
 * from ~/state's "config" (transient-local) and follow changes on /parameter_events (reliable, volatile, keep
 * last 1000, as rclcpp's parameter event subscriptions). Fast DDS 2.9 with fastddsgen's types of params.idl,
 * the participant as fastpeer.cpp makes it (rmw_fastrtps' settings, UDPv4 on 127.0.0.1 only, no multicast).
 * Prints "ready", then one line per sample: "state JSON" and "event NODE NEW CHANGED [NAME VALUE]..." (VALUE as
 * ../peer/params.c prints it: d:0.3 i:1 b:1 s:text a:1,2). Stops at the end of stdin. ROS_DOMAIN_ID from the
 * environment. */
#include <stdio.h>
#include <stdlib.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

#include "paramsPubSubTypes.h"

using namespace eprosima::fastdds::dds;
namespace rtps = eprosima::fastrtps::rtps;
namespace rci = rcl_interfaces::msg::dds_;
namespace stdm = std_msgs::msg::dds_;

static std::mutex out_mu;
static void say(const std::string &s) {
  std::lock_guard<std::mutex> g(out_mu);
  std::cout << s << std::endl;
}

static void die(const std::string &what) {
  fprintf(stderr, "fastparams: %s\n", what.c_str());
  exit(1);
}

static DomainParticipant *pp;
static Subscriber *sub;

/* fastpeer.cpp's make_participant, without the publisher: see there for each setting. */
static DomainParticipant *make_participant() {
  DomainParticipantFactory *f = DomainParticipantFactory::get_instance();
  DomainParticipantQos q = f->get_default_participant_qos();
  q.name("/");
  const char enclave[] = "enclave=/;";
  q.user_data().data_vec(std::vector<rtps::octet>(enclave, enclave + sizeof enclave));
  q.wire_protocol().builtin.readerHistoryMemoryPolicy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.wire_protocol().builtin.writerHistoryMemoryPolicy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.transport().use_builtin_transports = false;
  auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
  udp->interfaceWhiteList.emplace_back("127.0.0.1");
  udp->maxInitialPeersRange = 61;
  q.transport().user_transports.push_back(udp);
  rtps::Locator_t lo;
  rtps::IPLocator::setIPv4(lo, 127, 0, 0, 1);
  q.wire_protocol().builtin.metatrafficUnicastLocatorList.push_back(lo);
  q.wire_protocol().default_unicast_locator_list.push_back(lo);
  q.wire_protocol().builtin.initialPeersList.push_back(lo);
  const char *dom = getenv("ROS_DOMAIN_ID");
  DomainParticipant *p = f->create_participant(dom && *dom ? atoi(dom) : 0, q);
  if (p == nullptr) die("cannot create the participant");
  sub = p->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  if (sub == nullptr) die("cannot create the subscriber");
  return p;
}

template <class T> struct Take : DataReaderListener {
  void (*fn)(T &);
  std::string topic;
  Take(void (*f)(T &), const std::string &name) : fn(f), topic(name) {}
  /* "matched TOPIC N" when a writer comes or goes: a volatile topic's test waits for it before it makes the
     change it expects to see. */
  void on_subscription_matched(DataReader *, const SubscriptionMatchedStatus &st) override {
    say("matched " + topic + " " + std::to_string(st.current_count));
  }
  void on_data_available(DataReader *r) override {
    T m;
    SampleInfo si;
    while (r->take_next_sample(&m, &si) == ReturnCode_t::RETCODE_OK)
      if (si.valid_data) fn(m);
  }
};
static std::vector<std::unique_ptr<DataReaderListener>> listeners;

template <class PubSubType>
static void reader(const std::string &name, bool transient_local, int depth, void (*fn)(typename PubSubType::type &)) {
  TypeSupport ts(new PubSubType());
  ts->auto_fill_type_object(false);
  ts->auto_fill_type_information(false);
  if (ts.register_type(pp) != ReturnCode_t::RETCODE_OK) die("cannot register type " + ts.get_type_name());
  Topic *t = pp->create_topic(name, ts.get_type_name(), TOPIC_QOS_DEFAULT);
  if (t == nullptr) die("cannot create topic " + name);
  DataReaderQos q = sub->get_default_datareader_qos();
  q.endpoint().history_memory_policy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.data_sharing().off();
  q.history().kind = KEEP_LAST_HISTORY_QOS;
  q.history().depth = depth;
  q.durability().kind = transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
  q.reliability().kind = RELIABLE_RELIABILITY_QOS;
  listeners.emplace_back(new Take<typename PubSubType::type>(fn, name));
  if (sub->create_datareader(t, q, listeners.back().get()) == nullptr) die("cannot create a reader on " + name);
}

static std::string value(const rci::ParameterValue_ &v) {
  char b[64];
  switch (v.type()) {
  case 1: return std::string("b:") + (v.bool_value() ? "1" : "0");
  case 2: snprintf(b, sizeof b, "i:%lld", (long long) v.integer_value()); return b;
  case 3: snprintf(b, sizeof b, "d:%.17g", v.double_value()); return b;
  case 4: return "s:" + v.string_value();
  case 8: {
    std::string s = "a:";
    for (size_t i = 0; i < v.double_array_value().size(); i++) {
      snprintf(b, sizeof b, "%s%.17g", i ? "," : "", v.double_array_value()[i]);
      s += b;
    }
    return s;
  }
  }
  return "n:" + std::to_string(v.type());
}

int main() {
  pp = make_participant();
  reader<rci::ParameterEvent_PubSubType>("rt/parameter_events", false, 1000, [](rci::ParameterEvent_ &m) {
    std::string s = "event " + m.node() + " " + std::to_string(m.new_parameters().size()) + " " +
                    std::to_string(m.changed_parameters().size());
    for (auto &p : m.changed_parameters()) s += " " + p.name() + " " + value(p.value());
    say(s);
  });
  reader<stdm::String_PubSubType>("rt/rosorin_board_driver/state", true, 1, [](stdm::String_ &m) { say("state " + m.data()); });
  say("ready");
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  pp->delete_contained_entities();
  DomainParticipantFactory::get_instance()->delete_participant(pp);
  return 0;
}
