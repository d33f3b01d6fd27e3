// Package reportdoc is the one report model of the proof tools and its renderers: a Document (a title,
// sections of paragraphs, lists, tables whose cells carry a status, figures, and the JUnit test cases) that
// the proof report (proofs/report), the campaign's verification report and the stop-performance monitor
// (proofs/campaign) build, and one renderer per format: Markdown (CI's job summary, $GITHUB_STEP_SUMMARY),
// JUnit XML and one self-contained HTML page.
//
// The renderers escape what they are given: a cell may hold `|`, `<` or `&` and stays one cell. Markdown
// leaves figures and Form tables out (it is read as text); HTML puts figures inline (PNG as data: URIs, SVG
// as markup) under a Content-Security-Policy that fetches nothing.
//
// Spec: JUnit XML as Ant's junitreport writes it and Jenkins, GitLab and GitHub's test reporters read it
// (testsuites > testsuite > testcase, failure@message); testcase-level properties as pytest writes them.
// Markdown: GitHub Flavored Markdown tables (a `|` in a cell escaped as `\|`). Usage: docs/reports.md.
package reportdoc
