package ros2

import "testing"

func TestResolve(t *testing.T) {
	for _, tc := range []struct{ ns, name, want, dds string }{
		{"", "cmd_vel", "/cmd_vel", "rt/cmd_vel"},
		{"", "~/state", "/rosorin_board_driver/state", "rt/rosorin_board_driver/state"},
		{"/robot1", "imu/data_raw", "/robot1/imu/data_raw", "rt/robot1/imu/data_raw"},
		{"/robot1", "~/enable", "/robot1/rosorin_board_driver/enable", "rt/robot1/rosorin_board_driver/enable"},
		{"/robot1", "/estop", "/estop", "rt/estop"},
	} {
		got := Resolve(tc.ns, NodeName, tc.name)
		if got != tc.want || TopicName(got) != tc.dds {
			t.Errorf("Resolve(%q, %q) = %q (%q), want %q (%q)", tc.ns, tc.name, got, TopicName(got), tc.want, tc.dds)
		}
	}
	if got := RequestTopic("/rosorin_board_driver/enable"); got != "rq/rosorin_board_driver/enableRequest" {
		t.Errorf("RequestTopic = %q", got)
	}
	if got := ReplyTopic("/rosorin_board_driver/reset_estop"); got != "rr/rosorin_board_driver/reset_estopReply" {
		t.Errorf("ReplyTopic = %q", got)
	}
}

func TestCheckNamespace(t *testing.T) {
	for in, want := range map[string]string{"": "", "/": "", "robot1": "/robot1", "/a/b_2/": "/a/b_2"} {
		if got, err := CheckNamespace(in); err != nil || got != want {
			t.Errorf("CheckNamespace(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"1robot", "a//b", "a-b", "a b"} {
		if _, err := CheckNamespace(bad); err == nil {
			t.Errorf("CheckNamespace(%q) accepted", bad)
		}
	}
}

func TestServiceUserData(t *testing.T) {
	id := [16]byte{0x01, 0x0f, 0xab}
	if got, want := ServiceUserData("serviceid", id), "serviceid=01.f.ab.0.0.0.0.0.0.0.0.0.0.0.0.0;"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
