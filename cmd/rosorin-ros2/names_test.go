package main

import (
	"strings"
	"testing"
)

func TestBridgeNames(t *testing.T) {
	defer func() { rosArgs = nil }()
	name, ns, remap, err := bridgeNames("rosorin_board_driver", "/r1", []string{"cmd_vel:=nav/cmd_vel", "rosservice://~/enable:=~/arm"})
	if err != nil || name != "rosorin_board_driver" || ns != "/r1" || remap == nil {
		t.Fatalf("bridgeNames = %q %q %v", name, ns, err)
	}
	if got := remap("/r1/cmd_vel", false); got != "/r1/nav/cmd_vel" {
		t.Errorf("cmd_vel -> %q", got)
	}
	if got := remap("/r1/rosorin_board_driver/enable", true); got != "/r1/rosorin_board_driver/arm" {
		t.Errorf("~/enable -> %q", got)
	}
	if _, err := splitROSArgs([]string{"rosorin-ros2", "--ros-args", "-r", "__node:=base", "-r", "__ns:=/r2"}); err != nil {
		t.Fatal(err)
	}
	if name, ns, remap, err = bridgeNames("rosorin_board_driver", "", nil); err != nil || name != "base" || ns != "/r2" || remap != nil {
		t.Errorf("standalone ros2 --ros-args: %q %q %v", name, ns, err)
	}
	if _, _, _, err := bridgeNames("x", "", []string{"cmd_vel"}); err == nil || !strings.Contains(err.Error(), "--remap cmd_vel") {
		t.Errorf("bad --remap: %v", err)
	}
}

// TestBridgeParams: allow_graph_enable and allow_graph_reset come from the flags (or their environment
// variables), a -p of the bridge's ROS arguments wins, and a -p that is no bool stops the bridge.
func TestBridgeParams(t *testing.T) {
	defer func() { rosArgs = nil }()
	rosArgs = nil
	if e, r, err := bridgeParams(true, false); err != nil || !e || r {
		t.Errorf("flags only: %v %v %v", e, r, err)
	}
	if _, err := splitROSArgs([]string{"rosorin-ros2", "--ros-args", "-p", "allow_graph_reset:=true", "-p", "allow_graph_enable:=false"}); err != nil {
		t.Fatal(err)
	}
	if e, r, err := bridgeParams(true, false); err != nil || e || !r {
		t.Errorf("-p over the flags: enable %v reset %v %v", e, r, err)
	}
	if _, err := splitROSArgs([]string{"rosorin-ros2", "--ros-args", "-p", "allow_graph_enable:=1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bridgeParams(false, false); err == nil || !strings.Contains(err.Error(), "bool parameter") {
		t.Errorf("-p allow_graph_enable:=1: %v", err)
	}
}
