// Package envelope is the logic of `stopproof envelope` (issue 33): it reads floor campaign folders with
// proofs/campaign's loader, takes each cell's verification (campaign.Analyze: the travel's and the time to
// still's tolerance bounds at the plan's R and C, never recomputed here), groups the cells by stop path and
// direction, builds judge/envelope's envelope for each group, and renders the result: a table per group, the
// configuration (the stop zone, the approach time, the velocity smoother's max_decel, the speed limit for a
// clearance), one plot per group (PNG, SVG), one self-contained HTML page (proofs/reportdoc), the Nav2 YAML
// files (judge/envelope's) and the whole as JSON.
//
// # Refusals
//
// Load refuses (and nothing is written by the command) a stand campaign, a cell without a travel requirement
// (max_travel_m), a turn (its stop is an angle), a cell whose verification does not PASS (the envelope is
// built only from cells that pass: a failed cell's bound is not evidence), a path and direction with fewer
// than two tested speeds, and the same path, direction and speed in two campaigns. A clearance that no tested
// speed fits is refused too: the answer would be a speed below the slowest tested one, and the envelope is
// never extrapolated (judge/envelope's rule).
//
// # Several folders
//
// Folders holding the same plan are the shards of one campaign and are merged (campaign.LoadCampaign);
// folders with different plans are different campaigns, each verified at its own R and C, their cells pooled
// by path and direction (a campaign per speed, say).
//
// # Errata
//
//   - The floor campaign's run records carry no response time (trigger to the first decelerating frame at the
//     board), so the envelope's split into response and braking parts is not made: the fit's t_r is the
//     model's, not a measured response. The text, the HTML and the JSON say so.
//   - With several paths in one direction, the stop zone takes the path with the largest bounded distance at
//     its fastest tested speed, the smoother the one with the weakest fitted deceleration: each layer must
//     hold for every stop path that can end in it.
package envelope
