//! fio validation of the harness: every case run through fio instead of iolab must land
//! on its limit too, or the emulated devices (kernel, throttle, harness) are off.
//! A quick pick runs every time; the full sweep is ignored by default.

use serde_json::Value;

use crate::common::emu::{Cgroup, MIB, output_with_timeout};
use crate::truth::accuracy::cases::{Case, Device};
use crate::truth::accuracy::report::{assert_near, dev_pct, num};
use crate::truth::accuracy::{ALL_CASES, TIMEOUT, TOL};

fn fio_case(name: &str, c: &Case) -> Vec<String> {
    let device = Device::create(c.dev);
    let dev = device.dev();
    let cg = Cgroup::new();
    for l in c.limits {
        cg.limit(dev, *l);
    }
    let mut cmd = cg.command("fio");
    cmd.args([
        "--name=v",
        "--direct=1",
        "--ramp_time=1",
        "--runtime=3",
        "--time_based",
        "--group_reporting",
        "--output-format=json",
    ]);
    cmd.arg(format!("--filename={}", dev.dev_path().display()));
    cmd.arg(format!("--rw={}", c.rw));
    cmd.arg(format!("--bs={}", c.bs));
    cmd.arg(format!("--iodepth={}", c.qd));
    cmd.arg(format!("--numjobs={}", c.threads));
    cmd.arg(format!("--ioengine={}", c.engine));
    if let Some(m) = c.mix_read {
        cmd.arg(format!("--rwmixread={m}"));
    }
    let out = output_with_timeout(&mut cmd, TIMEOUT);
    assert!(out.status.success(), "fio failed: {}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("fio JSON");
    let job = &doc["jobs"][0];
    let (er, ew) = c.expected();
    let mut lines = Vec::new();
    for (dir, exp) in [("read", er), ("write", ew)] {
        if let Some(exp) = exp {
            let iops = num(job, &format!("{dir}.iops"));
            let line = format!(
                "{name}: fio {dir} {iops:.1} IOPS ({:.2} MiB/s) vs expected {exp:.1} ({:+.2}%)",
                iops * c.bs as f64 / MIB as f64,
                dev_pct(iops, exp)
            );
            note!("{line}");
            lines.push(line);
            assert_near(&format!("fio {name} {dir} iops"), iops, exp, TOL);
        }
    }
    lines
}

/// A quick fio cross-check on every run: if this fails, the emulated devices (kernel,
/// throttle, harness) are off, and iolab failures elsewhere are not iolab's fault.
#[test]
fn harness_fio_lands_on_limits_quick() {
    need_root!();
    need_tool!("fio");
    let pick = [
        "randread_4k_qd1_loop_read_iops_6000",
        "randwrite_4k_qd32_loop_write_iops_40000",
        "seq_write_512k_qd4_loop_write_bps_30mib",
    ];
    for (name, c) in ALL_CASES.iter().filter(|(n, _)| pick.contains(n)) {
        fio_case(name, c);
    }
}

/// Every case through fio (about 90 s).
#[test]
#[ignore = "slow (~90 s): validates the harness on every case; cargo test --test integration harness::fio_check -- --ignored"]
fn harness_fio_lands_on_every_limit() {
    need_root!();
    need_tool!("fio");
    let mut all = Vec::new();
    for (name, c) in ALL_CASES {
        all.extend(fio_case(name, c));
    }
    note!("fio validation summary:\n{}", all.join("\n"));
}
