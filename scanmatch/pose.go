package scanmatch

import "math"

// Pose2 is a planar pose or motion: X forward and Y left in metres, Yaw counter-clockwise in radians.
type Pose2 struct{ X, Y, Yaw float64 }

// Compose returns p followed by q (q expressed in p's frame).
func (p Pose2) Compose(q Pose2) Pose2 {
	c, s := math.Cos(p.Yaw), math.Sin(p.Yaw)
	return Pose2{p.X + c*q.X - s*q.Y, p.Y + s*q.X + c*q.Y, wrap(p.Yaw + q.Yaw)}
}

// Inverse returns the pose that undoes p.
func (p Pose2) Inverse() Pose2 {
	c, s := math.Cos(p.Yaw), math.Sin(p.Yaw)
	return Pose2{-c*p.X - s*p.Y, s*p.X - c*p.Y, wrap(-p.Yaw)}
}

// Between returns the motion from p to q in p's frame: p.Compose(p.Between(q)) == q.
func (p Pose2) Between(q Pose2) Pose2 { return p.Inverse().Compose(q) }

// Apply maps a point given in p's frame into the frame p is expressed in.
func (p Pose2) Apply(x, y float64) (float64, float64) {
	c, s := math.Cos(p.Yaw), math.Sin(p.Yaw)
	return p.X + c*x - s*y, p.Y + s*x + c*y
}

// Twist is a body-frame velocity: Vx forward, Vy left in m/s, W counter-clockwise in rad/s.
type Twist struct{ Vx, Vy, W float64 }

// Exp returns the motion after moving with the constant twist v for dt seconds (exact on SE(2)).
func (v Twist) Exp(dt float64) Pose2 {
	th := v.W * dt
	if math.Abs(th) < 1e-9 {
		return Pose2{v.Vx * dt, v.Vy * dt, th}
	}
	s, c := math.Sincos(th)
	a, b := s/v.W, (1-c)/v.W
	return Pose2{a*v.Vx - b*v.Vy, b*v.Vx + a*v.Vy, th}
}

// Log returns the constant twist that moves by d in dt seconds (the inverse of Exp).
func Log(d Pose2, dt float64) Twist {
	if dt <= 0 {
		return Twist{}
	}
	th := d.Yaw
	if math.Abs(th) < 1e-9 {
		return Twist{d.X / dt, d.Y / dt, th / dt}
	}
	s, c := math.Sincos(th)
	// Exp gives [x y] = (1/th) [[s, -(1-c)], [1-c, s]] [vx vy]*dt; invert the 2x2.
	a, b := s/th, (1-c)/th
	det := a*a + b*b
	return Twist{(a*d.X + b*d.Y) / det / dt, (-b*d.X + a*d.Y) / det / dt, th / dt}
}

func wrap(a float64) float64 {
	if a > math.Pi || a <= -math.Pi {
		a = math.Remainder(a, 2*math.Pi)
		if a <= -math.Pi {
			a += 2 * math.Pi
		}
	}
	return a
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
