use super::*;

const MB: f64 = 1e6;

/// Three runs around `v` (±1%): an interval of [0.99 v, 1.01 v].
fn around(f: Figure, v: f64) -> Measured {
    Measured::of(f, f.label(), &[v * 0.99, v, v * 1.01]).unwrap()
}

fn card(seq_w: f64, rr: f64, rw: f64, rr_deep: f64, rw_deep: f64) -> Vec<Measured> {
    vec![
        around(Figure::SeqWrite, seq_w),
        around(Figure::SeqRead, 90.0 * MB),
        around(Figure::RandRead, rr),
        around(Figure::RandWrite, rw),
        around(Figure::RandReadDeep, rr_deep),
        around(Figure::RandWriteDeep, rw_deep),
    ]
}

fn reader(queues: Option<bool>) -> Reader {
    Reader {
        name: "USB (usb-storage) 0bda:0129 Realtek USB2.0-CRW".into(),
        queues,
        why: "bulk-only transport: one command at a time".into(),
    }
}

fn verdict(r: &ClassReport, f: Family) -> &FamilyVerdict {
    r.families.iter().find(|v| v.family == f).unwrap()
}

#[test]
fn a1_not_a2_names_the_figure_that_misses() {
    let r = judge(card(12.0 * MB, 1600.0, 600.0, 1600.0, 600.0), reader(Some(true)));
    let app = verdict(&r, Family::Application);
    assert_eq!(app.met.as_deref(), Some("A1"));
    assert_eq!(app.misses.len(), 1);
    assert_eq!(app.misses[0].text, "not A2: queued random read 1600 IOPS < 4000");
    assert_eq!(app.text, "meets A1; not A2: queued random read 1600 IOPS < 4000");
    let video = verdict(&r, Family::Video);
    assert_eq!(video.met.as_deref(), Some("V10"));
    assert_eq!(video.misses.len(), 3, "V30, V60 and V90 each named");
    assert_eq!(video.misses[0].text, "not V30: sustained write 12.0 MB/s < 30");
    assert_eq!(verdict(&r, Family::Speed).met.as_deref(), Some("C10"));
    assert!(verdict(&r, Family::Speed).misses.is_empty());
    assert_eq!(verdict(&r, Family::Uhs).met.as_deref(), Some("U1"));
}

#[test]
fn random_writes_below_500_miss_a1() {
    let r = judge(card(35.0 * MB, 2000.0, 300.0, 2000.0, 300.0), reader(Some(true)));
    let app = verdict(&r, Family::Application);
    assert_eq!(app.met, None);
    assert_eq!(app.misses[0].text, "not A1: random write 300 IOPS < 500");
    assert_eq!(
        app.text,
        "meets none; not A1: random write 300 IOPS < 500; not A2: queued random read 2000 IOPS < 4000"
    );
    let video = verdict(&r, Family::Video);
    assert_eq!(video.met.as_deref(), Some("V30"));
    assert_eq!(video.misses[0].text, "not V60: sustained write 35.0 MB/s < 60");
}

#[test]
fn a_figure_exactly_at_a_bar_is_not_a_member() {
    // The median sits on the bar, its interval straddles it.
    let mut figs = card(30.0 * MB, 1500.0, 500.0, 1500.0, 500.0);
    let r = judge(figs.clone(), reader(Some(true)));
    assert_eq!(
        verdict(&r, Family::Video).met.as_deref(),
        Some("V10"),
        "V30 is not called met at 30.0 MB/s ±1%"
    );
    let m = &verdict(&r, Family::Video).misses[0];
    assert_eq!(m.class, "V30");
    assert!(
        m.text
            .starts_with("V30 not shown: sustained write 30.0 MB/s (95% interval 29.7 MB/s–30.3 MB/s) does not clear"),
        "{}",
        m.text
    );
    assert_eq!(verdict(&r, Family::Application).met, None, "1500/500 IOPS ±1% is not A1");
    // Its slowest run on the bar: the interval's low end clears it (inclusive).
    figs[0] = Measured::of(Figure::SeqWrite, "w", &[30.0 * MB, 30.5 * MB, 31.0 * MB]).unwrap();
    let r = judge(figs, reader(Some(true)));
    assert_eq!(verdict(&r, Family::Video).met.as_deref(), Some("V30"));
}

#[test]
fn one_run_meets_nothing_and_says_why() {
    let figs = vec![Measured::of(Figure::SeqWrite, "w", &[50.0 * MB]).unwrap()];
    let r = judge(figs, reader(Some(true)));
    let speed = verdict(&r, Family::Speed);
    assert_eq!(speed.met, None);
    assert!(
        speed.misses[0].text.contains("C2 unknown: sustained write 50.0 MB/s from one run"),
        "{}",
        speed.text
    );
    let app = verdict(&r, Family::Application);
    assert!(
        app.misses
            .iter()
            .all(|m| m.text.contains("unknown") || m.text.contains("not measured")),
        "{}",
        app.text
    );
}

#[test]
fn a2_behind_a_reader_that_cannot_queue_is_out_of_reach_not_missed() {
    let r = judge(card(20.0 * MB, 3000.0, 900.0, 3000.0, 900.0), reader(Some(false)));
    let app = verdict(&r, Family::Application);
    assert_eq!(app.met.as_deref(), Some("A1"));
    assert!(app.misses[0].unreachable);
    assert_eq!(
        app.misses[0].text,
        "A2 cannot be reached through USB (usb-storage) 0bda:0129 Realtek USB2.0-CRW (bulk-only transport: one command at a time): \
         queued random read 3000 IOPS < 4000"
    );
    // A card that clears A2 even so is A2.
    let r = judge(card(20.0 * MB, 5000.0, 2500.0, 5000.0, 2500.0), reader(Some(false)));
    assert_eq!(verdict(&r, Family::Application).met.as_deref(), Some("A2"));
    assert!(r.caveat.contains("as iolab measured it on this host through USB (usb-storage)"));
}

#[test]
fn a_missing_figure_is_named() {
    let r = judge(vec![around(Figure::SeqWrite, 40.0 * MB)], reader(None));
    let app = verdict(&r, Family::Application);
    assert_eq!(app.misses[0].text, "not A1: random read not measured");
    assert_eq!(verdict(&r, Family::Video).met.as_deref(), Some("V30"));
}

/// Issue 37: a class is not met on figures iolab itself calls
/// untrustworthy (a memory device's, a cache's): it is withheld, naming the
/// figure and why; a trusted figure that misses still decides first.
#[test]
fn a_class_cleared_by_an_untrustworthy_figure_is_withheld_not_met() {
    let mut figs = card(12.0 * MB, 1600.0, 600.0, 1600.0, 600.0);
    figs[2] = around(Figure::RandRead, 1600.0).untrusted(vec!["memory_device".into()]);
    let r = judge(figs.clone(), reader(Some(true)));
    let app = verdict(&r, Family::Application);
    assert_eq!(app.met, None, "{}", app.text);
    assert_eq!(
        app.misses[0].text,
        "A1 withheld: random read 1600 IOPS carries memory_device (the device is memory-backed: memory speed), so it is not the card's speed"
    );
    assert!(app.misses[0].measured.as_ref().is_some_and(|m| m.untrusted == ["memory_device"]));
    // The sustained write is trusted: the video classes stand.
    assert_eq!(verdict(&r, Family::Video).met.as_deref(), Some("V10"));
    // A trusted figure that misses the bar is named before the withheld one.
    figs[3] = around(Figure::RandWrite, 300.0);
    let r = judge(figs, reader(Some(true)));
    assert_eq!(
        verdict(&r, Family::Application).misses[0].text,
        "not A1: random write 300 IOPS < 500"
    );
    // The document keeps the codes, and a figure without them writes none.
    let json = serde_json::to_value(&r.figures).unwrap();
    assert_eq!(json[2]["untrusted"], serde_json::json!(["memory_device"]));
    assert!(json[0].get("untrusted").is_none());
}
