//! A ZFS pool's data members (`zpool iostat -v`'s question: did every
//! member work, and evenly?): one line each for the footer of the formats
//! of lines, a table for a page, and why an uneven split was not judged.
//! Worded once for a job (`jobs.rs`), a timed command and an app suite's
//! phases (`apps.rs`).

use crate::render::view::{Block, Cell, Column, Line, Table, Tone};
use crate::summary::zfs::ZfsMember;

/// The members a job, a timed command or a phase moved, and in which
/// directions to show them.
pub struct Members<'a> {
    /// Whose members, before each line (a job's or a phase's name); `None`
    /// for a timed command, whose report has one set.
    pub who: Option<&'a str>,
    pub list: &'a [ZfsMember],
    /// Why an uneven split was not judged (`zfs_members_unjudged`).
    pub unjudged: Option<&'a str>,
    /// Show what they read.
    pub read: bool,
    /// Show what they wrote.
    pub write: bool,
}

impl<'a> Members<'a> {
    /// The members in the directions they moved (a timed command or a
    /// phase, whose directions are not planned).
    pub fn moved(who: Option<&'a str>, list: &'a [ZfsMember], unjudged: Option<&'a str>) -> Members<'a> {
        Members {
            who,
            list,
            unjudged,
            read: list.iter().any(|m| m.read_bytes > 0),
            write: list.iter().any(|m| m.write_bytes > 0),
        }
    }

    /// "randread: " before a line, or nothing.
    fn prefix(&self) -> String {
        self.who.map(|w| format!("{w}: ")).unwrap_or_default()
    }

    /// One line per data member: what it read and wrote and its share of
    /// the members' bytes, in the directions shown; then why an uneven
    /// split was not judged, if it was not.
    pub fn lines(&self) -> Vec<Line> {
        let mut out: Vec<Line> = self
            .list
            .iter()
            .map(|m| {
                let state = m
                    .state
                    .as_deref()
                    .filter(|s| *s != "ONLINE")
                    .map(|s| format!(", {s}"))
                    .unwrap_or_default();
                let member = if self.who.is_some() { "member" } else { "Member" };
                let mut l = Line::new().text(format!("{}{member} {} ({}{state}):", self.prefix(), m.name, m.vdev));
                let dirs = [
                    (self.read, "read", m.read_bytes, m.read_share),
                    (self.write, "wrote", m.write_bytes, m.write_share),
                ];
                if !self.read && !self.write {
                    l = l.text(" moved nothing");
                }
                for (i, (_, verb, bytes, share)) in dirs.into_iter().filter(|d| d.0).enumerate() {
                    l = l
                        .text(format!("{} {verb} ", if i == 0 { "" } else { "," }))
                        .figure(Cell::Bytes(bytes));
                    if let Some(s) = share {
                        l = l.text(" (").figure(Cell::percent(s * 100.0, 0)).text(" of the members')");
                    }
                }
                l.text(".")
            })
            .collect();
        if let Some(why) = self.unjudged {
            let members = if self.who.is_some() { "members" } else { "Members" };
            out.push(Line::new().text(format!("{}{members} not judged for evenness: {why}.", self.prefix())));
        }
        out
    }

    /// The members as a table: each data member, its vdev and state, what
    /// it read and wrote and its share of the members' bytes, in the
    /// directions shown (`zpool iostat -v`'s columns); `None` without members.
    pub fn table(&self) -> Option<Table> {
        if self.list.is_empty() {
            return None;
        }
        let mut cols = vec![
            Column::text("Member", "member"),
            Column::text("Vdev", "vdev"),
            Column::text("State", "state"),
        ];
        if self.read {
            cols.push(Column::figure("Read", "read_bytes"));
            cols.push(Column::figure("Share of reads", "read_share_pct"));
        }
        if self.write {
            cols.push(Column::figure("Written", "write_bytes"));
            cols.push(Column::figure("Share of writes", "write_share_pct"));
        }
        let mut t = Table::new(cols);
        for m in self.list {
            let mut row = vec![
                Cell::text(&m.name),
                Cell::text(&m.vdev),
                Cell::text(m.state.as_deref().unwrap_or("")),
            ];
            let share = |s: Option<f64>| Cell::or_empty(s, |s| Cell::percent(s * 100.0, 0));
            if self.read {
                row.extend([Cell::Bytes(m.read_bytes), share(m.read_share)]);
            }
            if self.write {
                row.extend([Cell::Bytes(m.write_bytes), share(m.write_share)]);
            }
            t.row(row);
        }
        Some(t)
    }

    /// On a page: the table, then why an uneven split was not judged.
    pub fn blocks(&self) -> Vec<Block> {
        let mut out: Vec<Block> = self.table().map(Block::Table).into_iter().collect();
        if let Some(why) = self.unjudged {
            out.push(Block::paragraph(Tone::Muted, format!("Members not judged for evenness: {why}.")));
        }
        out
    }
}
