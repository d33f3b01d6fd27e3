/* What a Fast DDS user (Humble's default RMW) does for the node's parameters, since the parameter services do
 * not interoperate between rmw_fastrtps and rmw_cyclonedds (docs/ros2.md, "Parameters"): read the running values
 * from ~/state's "config" (transient-local) and follow changes on /parameter_events (reliable, volatile, keep
 * last 1000, as rclcpp's parameter event subscriptions). Fast DDS 2.9 with fastddsgen's types of params.idl,
 * the participant of ../fastcommon/fastcommon.hpp (rmw_fastrtps' settings, UDPv4 on 127.0.0.1 only, no multicast).
 * Prints "ready", "matched TOPIC N" when a writer comes or goes, then one line per sample: "state JSON" and "event NODE NEW CHANGED [NAME VALUE]..." (VALUE as
 * ../peer/params.c prints it: d:0.3 i:1 b:1 s:text a:1,2). Stops at the end of stdin. ROS_DOMAIN_ID from the
 * environment. */
#include <iostream>

#include "paramsPubSubTypes.h"
#include "fastcommon.hpp"

namespace rci = rcl_interfaces::msg::dds_;
namespace stdm = std_msgs::msg::dds_;

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
  reader<rci::ParameterEvent_PubSubType>("rt/parameter_events", {true, false, 1000}, [](rci::ParameterEvent_ &m, const SampleInfo &) {
    std::string s = "event " + m.node() + " " + std::to_string(m.new_parameters().size()) + " " +
                    std::to_string(m.changed_parameters().size());
    for (auto &p : m.changed_parameters()) s += " " + p.name() + " " + value(p.value());
    say("%s\n", s.c_str());
  });
  reader<stdm::String_PubSubType>("rt/rosorin_board_driver/state", kLatched, [](stdm::String_ &m, const SampleInfo &) {
    say("state %s\n", m.data().c_str());
  });
  say("ready\n");
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  cleanup();
  return 0;
}
