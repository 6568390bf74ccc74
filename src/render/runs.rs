//! The list of stored runs (`iolab list`) and the line above a stored run,
//! not yet turned into views (see [`super::view`]'s recipe): the terminal,
//! Markdown and CSV. Formats only.

/// `iolab list`: one line per stored run.
pub fn table(runs: &[crate::store::RunSummary]) -> String {
    if runs.is_empty() {
        return "no stored runs\n".to_string();
    }
    let mut t = super::text_table();
    t.set_header(vec!["ID", "Started (UTC)", "Kind", "Label", "Tags", "Target"]);
    for r in runs {
        let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let label = r.label.clone().unwrap_or_default() + if r.complete { "" } else { " (incomplete)" };
        t.add_row(vec![
            r.id.to_string(),
            r.started_at.clone(),
            r.kind.clone(),
            label,
            tags.join(" "),
            r.target.clone(),
        ]);
    }
    format!("{t}\n")
}

/// The lines above a stored run's table.
pub fn run_header(r: &crate::store::RunSummary) -> String {
    let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "Run {} · {} · {}{}{}{}\n",
        r.id,
        r.started_at,
        r.kind,
        r.label.as_ref().map(|l| format!(" · \"{l}\"")).unwrap_or_default(),
        if tags.is_empty() {
            String::new()
        } else {
            format!(" · {}", tags.join(" "))
        },
        if r.complete { "" } else { " · INCOMPLETE (interrupted)" }
    )
}

/// `iolab list` as a Markdown table.
pub fn markdown(runs: &[crate::store::RunSummary]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.id.to_string(),
                r.started_at.clone(),
                r.kind.clone(),
                r.label.clone().unwrap_or_default(),
                r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
                format!("`{}`", r.target.replace('`', "'")),
                if r.complete { "yes" } else { "no (interrupted)" }.into(),
            ]
        })
        .collect();
    super::markdown::grid(
        &["ID", "Started (UTC)", "Kind", "Label", "Tags", "Target", "Complete"],
        &[true, false, false, false, false, false, false],
        &rows,
    )
}

/// `iolab list` as CSV: a row per stored run, tags as `k=v` separated by spaces.
pub fn csv(runs: &[crate::store::RunSummary]) -> String {
    let rows = runs.iter().map(|r| {
        vec![
            r.id.to_string(),
            r.started_at.clone(),
            r.kind.clone(),
            r.label.clone().unwrap_or_default(),
            r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
            r.target.clone(),
            r.complete.to_string(),
        ]
    });
    super::csv::lines(&["id", "started_at", "kind", "label", "tags", "target", "complete"], rows)
}
