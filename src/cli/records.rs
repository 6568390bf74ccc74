//! The commands that read and keep records: `info`, `list`, `show`,
//! `compare`, `import` (and the store errors they share).

use super::*;

/// `iolab info`.
pub(super) fn info(a: &InfoArgs) -> Result<()> {
    if !a.target.exists() {
        return Err(usage(format!("target {} does not exist", a.target.display())));
    }
    let report = crate::device::describe(&SysRoot::default(), &a.target)
        .map_err(|e| usage(format!("cannot describe {}: {e}", a.target.display())))?;
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(|e| failed(format!("writing JSON: {e}")))?;
        writeln!(out).map_err(|e| failed(format!("writing output: {e}")))
    } else {
        write!(out, "{}", crate::render::info::render_info(&report)).map_err(|e| failed(format!("writing output: {e}")))
    }
}

pub(super) fn store_err(e: store::StoreError) -> Error {
    match e {
        store::StoreError::NotFound(_) => usage(e.to_string()),
        _ => failed(e.to_string()),
    }
}

pub(super) fn open_store(db: &std::path::Path) -> Result<Store> {
    Store::open(db).map_err(store_err)
}

/// `iolab list`.
pub(super) fn list(db: &std::path::Path, a: &ListArgs) -> Result<()> {
    let runs = open_store(db)?
        .list(&store::Filter {
            label: a.label.clone(),
            tags: a.tag.clone(),
        })
        .map_err(store_err)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let v: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id, "label": r.label,
                    "tags": r.tags.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
                    "started_at": r.started_at, "kind": r.kind, "target": r.target, "complete": r.complete,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &v).map_err(|e| failed(e.to_string()))?;
        writeln!(out).map_err(|e| failed(e.to_string()))
    } else {
        write!(out, "{}", render::run_list(&runs)).map_err(|e| failed(e.to_string()))
    }
}

/// `iolab compare`.
pub(super) fn compare(db: &std::path::Path, a: &CompareArgs) -> Result<()> {
    let mut st = open_store(db)?;
    for &(id, price) in &a.price {
        st.set_price(id, price).map_err(store_err)?;
    }
    for &(id, bytes) in &a.capacity {
        st.set_capacity(id, bytes).map_err(store_err)?;
    }
    let mut runs = Vec::with_capacity(a.ids.len());
    for &id in &a.ids {
        let r = st.load(id).map_err(store_err)?;
        runs.push(crate::compare::RunRef {
            id,
            label: r.summary.label,
            price: r.price,
            capacity_bytes: r.capacity_bytes,
            report: r.report,
        });
    }
    let baseline = a.baseline.unwrap_or(a.ids[0]);
    let c = crate::compare::compare(&runs, baseline).map_err(usage)?;
    let text = match a.format {
        CompareFormat::Table => crate::render::compare::render_table(&c),
        CompareFormat::Markdown => crate::render::compare::render_markdown(&c),
        CompareFormat::Csv => crate::render::compare::render_csv(&c),
        CompareFormat::Json => serde_json::to_string_pretty(&c).map_err(|e| failed(e.to_string()))? + "\n",
    };
    write!(std::io::stdout().lock(), "{text}").map_err(|e| failed(e.to_string()))
}

/// `iolab import`.
pub(super) fn import(db: &std::path::Path, a: &ImportArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.file).map_err(|e| usage(format!("cannot read {}: {e}", a.file.display())))?;
    let report = crate::import::parse_fio_json(&text).map_err(|e| usage(format!("{}: {e}", a.file.display())))?;
    let id = open_store(db)?.save(&report, a.label.as_deref(), &a.tag, true).map_err(store_err)?;
    eprintln!(
        "iolab: stored as run {id} in {} ({} job(s) from {})",
        db.display(),
        report.jobs.len(),
        report.iolab_version
    );
    Ok(())
}

/// `iolab show`.
pub(super) fn show(db: &std::path::Path, a: &ShowArgs) -> Result<()> {
    let run = open_store(db)?.load(a.id).map_err(store_err)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        render::json(&run.report, &mut out).map_err(|e| failed(e.to_string()))
    } else {
        write!(out, "{}{}", render::run_header(&run.summary), render::table(&run.report)).map_err(|e| failed(e.to_string()))
    }
}
