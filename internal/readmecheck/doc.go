// Package readmecheck holds the test that keeps the README's map honest: every command, every package and
// every ROS 2 topic the bridge publishes or subscribes is named there (issue 32). It has no code of its own.
package readmecheck
