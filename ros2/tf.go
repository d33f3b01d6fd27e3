package ros2

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// tf: the sensor mounts on /tf_static, odom -> base_link on /tf when publish_odom_tf is set (an entry of
// outputs, bridge.go) (docs/ros2.md, "tf").

var typeTF = (*rosmsg.TFMessage)(nil).ROSType()

// tfStaticQoS is tf2_ros::StaticTransformBroadcaster's: reliable, transient local, keep last 1 (every static
// transform in the one message).
var tfStaticQoS = dds.QoS{Reliable: true, TransientLocal: true, Depth: 1}

// tfQoS is tf2_ros::TransformBroadcaster's (the default profile, depth 100).
var tfQoS = dds.QoS{Reliable: true, Depth: 100}

// Frames are the frame ids of the driver's configuration (base_frame_id, odom_frame_id, imu_frame_id,
// lidar_frame_id) and publish_odom_tf.
type Frames struct {
	Base          string `json:"base_frame_id"`
	Odom          string `json:"odom_frame_id"`
	IMU           string `json:"imu_frame_id"`
	Lidar         string `json:"lidar_frame_id"`
	PublishOdomTF bool   `json:"publish_odom_tf"`
}

// FramesFrom reads the frames from the driver's configuration (GET /v1/config); a missing id is the default's.
func FramesFrom(raw []byte) (Frames, error) {
	d := config.Default()
	f := Frames{Base: d.BaseFrameID, Odom: d.OdomFrameID, IMU: d.IMUFrameID, Lidar: d.LidarFrameID}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("driver configuration: %w", err)
	}
	for _, id := range []string{f.Base, f.Odom, f.IMU, f.Lidar} {
		if id == "" {
			return f, fmt.Errorf("driver configuration: an empty frame id (%+v)", f)
		}
	}
	return f, nil
}

// StaticTransforms is /tf_static's message: base -> LiDAR and base -> IMU (config.LidarMount, IMUMount).
func StaticTransforms(f Frames, stamp time.Time) *rosmsg.TFMessage {
	return config.StaticTransforms(f.Base, f.Lidar, f.IMU, stamp)
}

// publishOdomTF is /tf's condition: publish_odom_tf.
func publishOdomTF(f Frames) bool { return f.PublishOdomTF }

// OdomTransform is odom -> base_link of one odometry record.
func OdomTransform(o *api.Odom) *rosmsg.TFMessage {
	return &rosmsg.TFMessage{Transforms: []rosmsg.TransformStamped{{
		Header:       rosmsg.Header{Stamp: rosmsg.TimeFromNanos(o.Stamp.UnixNano()), FrameID: o.FrameID},
		ChildFrameID: o.ChildFrameID,
		Transform: rosmsg.Transform{Translation: rosmsg.Vector3{X: o.X, Y: o.Y},
			Rotation: rosmsg.Quaternion{Z: o.QZ, W: o.QW}},
	}}}
}

// transforms publishes /tf_static once the driver's configuration is known, and then hands the frames to
// the outputs that wait for them (/tf).
func (b *Bridge) transforms(ctx context.Context) {
	var f Frames
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		raw, err := b.c.Config(cctx)
		cancel()
		if err == nil {
			if f, err = FramesFrom(raw); err == nil {
				break
			}
		}
		if b.cfg.Clock.Sleep(ctx, 500*time.Millisecond) != nil {
			return
		}
	}
	if err := b.tfStatic.Publish(StaticTransforms(f, b.cfg.Clock.Now())); err != nil {
		b.log.Error("/tf_static not published", "err", err)
	} else {
		b.log.Info("/tf_static published", "lidar", f.Base+" -> "+f.Lidar, "imu", f.Base+" -> "+f.IMU, "publish_odom_tf", f.PublishOdomTF)
	}
	b.frames = f
	close(b.framesReady)
}
