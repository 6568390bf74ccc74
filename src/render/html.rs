//! The HTML report: one self-contained page per run or comparison.
//! (Being written: see issue 13.)

use super::Page;

/// The whole page.
pub fn page(_p: &Page) -> String {
    String::new()
}
