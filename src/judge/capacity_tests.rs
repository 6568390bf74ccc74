use super::*;
use crate::verify::Verdict;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

fn probe(verdict: ProbeVerdict) -> ProbeReport {
    ProbeReport {
        announced: 4 * GIB,
        granularity: MIB,
        unit: 4096,
        verdict,
        rounds: 12,
        blocks_written: 1500,
        distinct_blocks_written: 1400,
        blocks_read: 2600,
    }
}

fn fake(real: u64, bad: u64, alias: Option<u64>) -> ProbeReport {
    probe(ProbeVerdict::Fake {
        real_bytes: real,
        bad_from: bad,
        alias_distance: alias,
    })
}

fn facts(p: &ProbeReport) -> CapacityFacts<'_> {
    CapacityFacts {
        probe: p,
        read_errors: &[],
        write_errors: &[],
        good_reads: &[],
        confirmation: None,
        restore_mismatches: &[],
        earlier: None,
    }
}

fn earlier() -> EarlierVerify {
    EarlierVerify {
        run_id: 7,
        started_at: "2026-11-20T10:00:00Z".into(),
        device: "loop:/tmp/x.img:4294967296".into(),
        verdict: Verdict::FakeCapacity { real_bytes: GIB },
        message: "fake capacity: 1.00 GiB of 4.00 GiB".into(),
    }
}

#[test]
fn genuine_when_nothing_says_otherwise() {
    let p = probe(ProbeVerdict::Genuine);
    let j = judge(&facts(&p));
    assert_eq!(j.verdict, CapacityVerdict::Genuine);
    assert!(j.message.starts_with("genuine"), "{}", j.message);
    assert!(!j.verdict.failed());
}

#[test]
fn fake_with_its_sizes() {
    let p = fake(GIB, GIB + 4096, Some(GIB));
    let j = judge(&facts(&p));
    assert_eq!(
        j.verdict,
        CapacityVerdict::Fake {
            real_bytes: GIB,
            first_bad_byte: GIB + 4096,
            safe_partition_bytes: GIB - MIB,
            alias_distance: Some(GIB),
        }
    );
    assert!(j.verdict.failed());
    assert!(j.message.contains("FAKE") && j.message.contains("1023M partition"), "{}", j.message);
    assert!(j.message.contains("wraps"), "{}", j.message);
}

#[test]
fn safe_partition_size_at_its_boundaries() {
    assert_eq!(safe_partition_bytes(0), 0);
    assert_eq!(safe_partition_bytes(MIB), 0);
    assert_eq!(safe_partition_bytes(2 * MIB - 4096), 0);
    assert_eq!(safe_partition_bytes(2 * MIB), MIB);
    assert_eq!(safe_partition_bytes(2 * MIB + 4096), MIB);
    assert_eq!(safe_partition_bytes(GIB), GIB - MIB);
    // A partition of that size starting at 1 MiB ends within the real size.
    for real in [3 * MIB + 12345, GIB - 1, 7 * GIB + 3 * 4096] {
        assert!(MIB + safe_partition_bytes(real) <= real, "{real}");
    }
}

#[test]
fn nothing_usable_on_a_tiny_real_size() {
    let p = fake(4096, 8192, None);
    let j = judge(&facts(&p));
    assert!(matches!(
        j.verdict,
        CapacityVerdict::Fake {
            safe_partition_bytes: 0,
            ..
        }
    ));
    assert!(j.message.contains("nothing of it is usable"), "{}", j.message);
}

#[test]
fn read_errors_below_the_boundary_are_damage_at_or_beyond_are_not() {
    let p = fake(GIB, GIB + 4096, None);
    // At the boundary and beyond: how a fake answers for what it lacks.
    let errs = [GIB, GIB + 4096, 3 * GIB];
    let j = judge(&CapacityFacts {
        read_errors: &errs,
        ..facts(&p)
    });
    assert!(matches!(j.verdict, CapacityVerdict::Fake { .. }), "{j:?}");
    // One block below it: damaged.
    let errs = [GIB - 4096, 3 * GIB];
    let j = judge(&CapacityFacts {
        read_errors: &errs,
        ..facts(&p)
    });
    assert_eq!(
        j.verdict,
        CapacityVerdict::Damaged {
            damage: Damage::ReadErrors {
                count: 1,
                first: GIB - 4096
            }
        }
    );
    assert!(j.message.starts_with("DAMAGED"), "{}", j.message);
    // On a genuine device every offset is below the boundary.
    let g = probe(ProbeVerdict::Genuine);
    let errs = [4 * GIB - 4096];
    let j = judge(&CapacityFacts {
        read_errors: &errs,
        ..facts(&g)
    });
    assert!(matches!(j.verdict, CapacityVerdict::Damaged { .. }));
}

#[test]
fn write_errors_below_the_boundary_are_damage() {
    let p = fake(GIB, GIB + 4096, Some(GIB));
    let errs = [GIB + 8192];
    assert!(matches!(
        judge(&CapacityFacts {
            write_errors: &errs,
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Fake { .. }
    ));
    let errs = [4096];
    assert_eq!(
        judge(&CapacityFacts {
            write_errors: &errs,
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Damaged {
            damage: Damage::WriteErrors { count: 1, first: 4096 }
        }
    );
}

#[test]
fn good_blocks_above_lost_ones_are_a_damaged_region() {
    // Lost (no alias), and the top block read back as itself: damaged.
    let p = fake(2 * GIB, 2 * GIB + 4096, None);
    let good = [4096, 4 * GIB - 4096];
    let j = judge(&CapacityFacts {
        good_reads: &good,
        ..facts(&p)
    });
    assert_eq!(
        j.verdict,
        CapacityVerdict::Damaged {
            damage: Damage::BadRegion {
                from: 2 * GIB + 4096,
                good_at: 4 * GIB - 4096
            }
        }
    );
    // Good only below the first bad byte: a lost tail, fake.
    let good = [4096, 2 * GIB];
    assert!(matches!(
        judge(&CapacityFacts {
            good_reads: &good,
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Fake { .. }
    ));
    // With a wrap, blocks above read back as themselves until their alias is written: fake.
    let w = fake(2 * GIB, 2 * GIB + 4096, Some(2 * GIB));
    let good = [4 * GIB - 4096];
    assert!(matches!(
        judge(&CapacityFacts {
            good_reads: &good,
            ..facts(&w)
        })
        .verdict,
        CapacityVerdict::Fake { .. }
    ));
}

#[test]
fn an_unstable_confirmation_is_damage_first() {
    let p = probe(ProbeVerdict::Genuine);
    let stable = Confirmation {
        reread_blocks: 100,
        changed: vec![],
        fresh: vec![(4 * GIB - 4096, Class::Good), (2 * GIB, Class::Good)],
    };
    assert_eq!(
        judge(&CapacityFacts {
            confirmation: Some(&stable),
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Genuine
    );
    let changed = Confirmation {
        changed: vec![ChangedBlock {
            offset: 8192,
            before: Class::Good,
            after: Class::Corrupted,
        }],
        ..stable.clone()
    };
    let errs = [4096];
    let j = judge(&CapacityFacts {
        confirmation: Some(&changed),
        read_errors: &errs,
        ..facts(&p)
    });
    assert_eq!(
        j.verdict,
        CapacityVerdict::Damaged {
            damage: Damage::Unstable { blocks: 1, first: 8192 }
        }
    );
    let lost_fresh = Confirmation {
        fresh: vec![(2 * GIB, Class::Blank)],
        ..stable
    };
    assert!(matches!(
        judge(&CapacityFacts {
            confirmation: Some(&lost_fresh),
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Damaged {
            damage: Damage::Unstable { first, .. }
        } if first == 2 * GIB
    ));
}

#[test]
fn restore_mismatches_count_below_the_boundary_only() {
    let p = fake(GIB, GIB + 4096, Some(GIB));
    let beyond = [GIB + 4096, 2 * GIB];
    assert!(matches!(
        judge(&CapacityFacts {
            restore_mismatches: &beyond,
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Fake { .. }
    ));
    let below = [GIB - 4096, 2 * GIB];
    assert_eq!(
        judge(&CapacityFacts {
            restore_mismatches: &below,
            ..facts(&p)
        })
        .verdict,
        CapacityVerdict::Damaged {
            damage: Damage::RestoreMismatch {
                blocks: 1,
                first: GIB - 4096
            }
        }
    );
}

#[test]
fn an_earlier_failed_verify_vetoes_genuine() {
    let p = probe(ProbeVerdict::Genuine);
    let e = earlier();
    let j = judge(&CapacityFacts {
        earlier: Some(&e),
        ..facts(&p)
    });
    assert_eq!(j.verdict, CapacityVerdict::Suspect { verify_run: 7 });
    assert!(j.verdict.failed());
    assert!(
        j.message.contains("verify run 7") && j.message.contains("fake capacity: 1.00 GiB"),
        "{}",
        j.message
    );
    // A fake stays fake, and says the verify agrees.
    let f = fake(GIB, GIB + 4096, Some(GIB));
    let j = judge(&CapacityFacts {
        earlier: Some(&e),
        ..facts(&f)
    });
    assert!(matches!(j.verdict, CapacityVerdict::Fake { .. }));
    assert!(j.message.contains("verify run 7 agrees"), "{}", j.message);
}

#[test]
fn verdicts_serialise_with_a_kind() {
    let v = CapacityVerdict::Damaged {
        damage: Damage::ReadErrors { count: 2, first: 0 },
    };
    let s = serde_json::to_string(&v).unwrap();
    assert_eq!(s, r#"{"kind":"damaged","damage":{"kind":"read_errors","count":2,"first":0}}"#);
    assert_eq!(serde_json::from_str::<CapacityVerdict>(&s).unwrap(), v);
}
