//! `iolab capacity`: the verdict's sentence (an alert unless genuine) and
//! the probe's facts: sizes, costs, what happened to the device's data.

use super::{Out, facts};
use crate::render::svg::escape;
use crate::summary::Report;
use crate::summary::capacity::CapacityReport;

pub(super) fn section(o: &mut Out, r: &Report, c: &CapacityReport, rid: &str) {
    o.open("capacity", &format!("{rid}-capacity"), 3, "Capacity probe");
    let class = if c.failed() { "alert capacity-verdict" } else { "capacity-verdict" };
    w!(o.body, "<p class=\"{class}\">{}</p>\n", escape(&c.message));
    let items = crate::render::capacity::facts(r, c);
    facts(o, &items);
    o.close();
}
