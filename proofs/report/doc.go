// Package report turns stop proof runs (their --json records, or recordings re-judged by prove.Rejudge) into
// the reports CI shows: a markdown stop-path table, JUnit XML (one testcase per path and speed, measurements
// as properties, the judge's reason as the failure message), one self-contained HTML page with a plot per
// path (vibration score against time, the threshold, the trigger and the judged still-from; gonum.org/v1/plot,
// PNG inline as data: URIs, nothing fetched), and regression verdicts against a committed baseline.
//
// Spec: JUnit XML as Ant's junitreport writes it and Jenkins, GitLab and GitHub's test reporters read it
// (testsuites > testsuite > testcase, failure@message); testcase-level properties as pytest writes them.
// Usage, the baseline's tolerance and measured figures: docs/reports.md.
package report
