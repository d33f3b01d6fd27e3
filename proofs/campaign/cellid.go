package campaign

import "strconv"

// reportCellID names a cell as the runs' Slot.Cell does: "PATH/DIRECTION/SPEED" ("estop/forward/0.2"), the
// direction "" read as "forward". It stands in for Cell.ID, which the runner's plan.go defines; at the merge
// the two must agree (or this one goes and its callers call c.ID()).
func reportCellID(c Cell) string {
	d := c.Direction
	if d == "" {
		d = "forward"
	}
	return c.Path + "/" + d + "/" + strconv.FormatFloat(c.Speed, 'f', -1, 64)
}
