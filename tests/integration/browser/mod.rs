//! The HTML report in a real browser (headless chromium, driven by
//! `common/browser.rs`): each kind of report loads with no console error and
//! no request, and its charts match their data (`report`).

mod report;
