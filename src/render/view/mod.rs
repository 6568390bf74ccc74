//! The neutral view of a result: what is said, not how a format says it.
//!
//! Each kind of result is turned once into a [`View`] by its builder in
//! [`crate::render::views`]: sections with a heading, and in them facts,
//! tables of typed [`Cell`]s, notes, warnings and charts' series. Text,
//! Markdown, CSV and HTML each render a `View` and nothing else
//! (`render/text.rs`, `markdown.rs`, `csv.rs`, `html/view.rs` with
//! `html/chart.rs`); JSON stays the stored document. So a label is spelled
//! once, in the builder, and a unit once, in the cell's formatting
//! ([`cell`]): a bandwidth is a [`Cell::Bandwidth`] in bytes/s everywhere,
//! shown in the chosen `--units` by the terminal and Markdown, in MB/s by
//! the HTML page, and as the raw number by CSV.
//!
//! # What a format shows: [`Detail`]
//! Formats legitimately differ in how much they show: the terminal is
//! narrow (one row per test), Markdown and CSV keep a row per test and
//! direction, CSV wants raw columns people need in a spreadsheet, the
//! HTML page has per-test charts. The view marks such parts with a
//! [`Detail`] (on a [`Section`], a block through [`Block::Only`], or a
//! [`Column`]), and each renderer says which details it shows in its one
//! `SHOWS` list. No builder names a format; no renderer knows a kind.
//!
//! | renderer | shows |
//! |---|---|
//! | text (`Format::Table`) | All, Brief, Lines, Human |
//! | Markdown | All, Full, Lines, Human |
//! | HTML | All, Brief, Page, Human |
//! | CSV | All, Full, Raw — and of the tables only the view's [`Table::records`] |
//!
//! # How each format lays out a block
//! | block | terminal | Markdown | HTML | CSV |
//! |---|---|---|---|---|
//! | [`Heading::Shown`] | a line (a blank one before) | `**heading**` | `<hN>`, listed in the contents | – |
//! | [`Heading::Outline`] | – | – | `<hN>`, listed in the contents | – |
//! | [`Block::Paragraph`] | a line; a verdict with `alert` coloured | a line; a verdict in bold | `<p>`, `class="sub"` when muted, `"[alert ]CLASS-verdict"` for a verdict | – |
//! | [`Block::Facts`] | a two-column table | a `\| \| \|` table, a [`Fact::loud`] value `**bold**` | `<dl class="facts">`, a loud value `<strong class="loud">` | – |
//! | [`Block::Table`] | a table, figures right-aligned | a table, `---:` for figures | a data table; the [`Table::headline`] one as CrystalDiskMark's, bars behind bandwidths, each [`Row::warnings`] under its row | the [`Table::records`] one only, columns' keys as header, [`Cell::raw`] |
//! | [`Block::Chart`] | a text curve when [`Chart::curve`] (one series, linear axes), else nothing | its numbers as a table | the SVG, its numbers beside or under it (folded past 12 rows) | its numbers when they are the records |
//! | [`Block::Notes`] | a line each; [`NoteTone::Failed`] coloured | plain notes one paragraph (hard breaks); a stop `*emphasised*` apart | plain notes one `<p class="units">`; stops `<p class="alert">` | – |
//! | [`Block::Warnings`] | `warning [code] (scope): message`, coloured | `**Warnings**` and `- code: message` | `<ul class="warnings">`: badge, message, scope | – |
//! | [`Block::List`] | `Title:`, then `  - subject: line [code]` a line each, a [`Item::key`] one coloured | `**Title**`, then `- **subject**: line [code]` | `<div class="CLASS">`: `<p class="list-title">`, `<ul class="list">`, each `<li>` a badge for its code, `<strong>subject</strong>: line`, `class="key"` | – |
//!
//! A line chart of more than [`crate::render::envelope::MAX_DRAWN_POINTS`]
//! points is folded by its builder ([`crate::render::envelope::fold`]):
//! each series drawn as buckets (median line, min–max band), its numbers
//! a few coarse buckets, its caption saying so; the records a format of
//! records writes (CSV, and the JSON document) keep every point.
//!
//! Blocks follow each other line after line in the terminal and with a
//! blank line between them in Markdown. A cell is written by
//! [`Cell::human`] ([`Place::Column`] in tables, where a bandwidth's,
//! seconds' or percentage's unit is in the column's heading;
//! [`Place::Prose`] in sentences, with its unit) or [`Cell::raw`]; an
//! empty cell is nothing in the terminal and `–` in Markdown and HTML.
//!
//! # How to add a kind of result
//! Every result has its builder in [`crate::render::views`] (runs and
//! imports in `views/jobs.rs`, scans, scales, verifies, capacity probes,
//! timed commands and app suites, comparisons, hosts, info, selftest, the
//! run list); a new kind is one person's work, touching only its own files.
//! 1. Write `src/render/views/KIND.rs` with one `pub fn view(..) -> View`
//!    (or its sections, when the kind is a kind of run), from the model
//!    only: read figures from the model and its accessors in
//!    [`crate::summary`] (`summary::figures`); a figure the model lacks is
//!    a new accessor there, never arithmetic in the builder beyond unit
//!    conversions. Word every label there, once; put figures in typed
//!    cells ([`Cell::Bandwidth`], [`Cell::Latency`], [`Cell::Bytes`]…), and
//!    in sentences as [`Span::Figure`] / [`Span::Number`] and
//!    [`Span::BwUnit`] / [`Span::BwDefinition`], never as pre-formatted
//!    numbers, so `--units` and each format's rules apply. A diagnostic
//!    becomes a [`Warning`] with `Warning::from`.
//! 2. Lay it out: a [`Section`] per part, with an `id` unique in the view
//!    (the page prefixes the run's: `run-1-ID`) and a `class` (the page's
//!    section class; a verdict paragraph is classed `CLASS-verdict`); a
//!    [`Heading::Outline`] for a heading only a page's outline needs,
//!    [`Heading::Shown`] for one every format prints, [`Heading::None`]
//!    for lines that go on from what is above.
//! 3. Where formats legitimately differ, mark it with a [`Detail`]
//!    rather than building a table per format: a terse table for screens
//!    (`Brief`) beside the complete one (`Full`); lines under the tables
//!    for the formats of lines (`Lines`), which a page says in its header
//!    and legends (`Page`); a column of words for people (`Human`) beside
//!    its raw columns (`Raw`). Name the one table CSV writes with
//!    [`Table::records`] (a chart's numbers may be it). Give charts their
//!    numbers ([`Chart::numbers`]), in the axes' quantities ([`Quantity`]);
//!    the formats pick display units.
//! 4. Wire it: for a kind of run, one arm in [`crate::render::views::run`];
//!    for another document (like the comparison, hosts, info, selftest,
//!    the run list), an arm in the exporters of `render/mod.rs` that hands
//!    its view to `text::render`, `markdown::render`, `csv::render` and
//!    `html::view_page`.
//! 5. The snapshots in `src/render/snapshots/` pin the output and must
//!    pass unchanged, except where a wording that had drifted between
//!    formats becomes one: then the snapshot changes there only, and the
//!    commit lists each change, old → new. Add tests for anything new in
//!    [`cell`] (each format) and for the builder's own cases.
//!
//! Adding a format: a renderer of `View` with its `SHOWS` list, an
//! [`crate::render::Exporter`] calling it, a `Format` variant. Adding a
//! kind of result: steps 1–5, one file per side.

pub mod cell;

pub use cell::{Badge, Cell, Fmt, Latency, Line, Place, Ratio, Span};

use crate::judge::Severity;

/// The words of the list of warnings in the formats that title it.
pub const WARNINGS: &str = "Warnings";

/// A result as formats show it.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// What the result is, on what: a page's title.
    pub title: String,
    pub sections: Vec<Section>,
}

/// Who shows a part of a view (see the module doc's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every format.
    All,
    /// The terse form for screens: one row per test (the terminal, HTML).
    Brief,
    /// The complete rows, for documents and spreadsheets (Markdown, CSV).
    Full,
    /// Lines under the tables, for formats made of lines (the terminal,
    /// Markdown): a page says the same in its header and legends.
    Lines,
    /// What a page with room and an outline adds (HTML): per-test charts,
    /// legends beside the tables, notes under their rows.
    Page,
    /// For people, not spreadsheets (every format but CSV).
    Human,
    /// Raw figures only spreadsheets want (CSV).
    Raw,
}

impl Detail {
    /// Whether a renderer showing `shows` shows this.
    pub fn shown(self, shows: &[Detail]) -> bool {
        self == Detail::All || shows.contains(&self)
    }
}

/// A section's heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heading {
    /// None: the section goes on from what comes before it (a footer).
    None,
    /// For a page's outline only (HTML headings and contents); formats of
    /// lines leave it out, the section's first block saying what it is.
    Outline(String),
    /// Printed by every format.
    Shown(String),
}

impl Heading {
    pub fn text(&self) -> Option<&str> {
        match self {
            Heading::None => None,
            Heading::Outline(t) | Heading::Shown(t) => Some(t),
        }
    }
}

/// One part of a view.
#[derive(Clone, Debug)]
pub struct Section {
    /// Unique in the view (HTML: the element's id, after the run's).
    pub id: String,
    /// What kind of section it is (HTML: its class).
    pub class: &'static str,
    pub heading: Heading,
    pub detail: Detail,
    pub blocks: Vec<Block>,
    /// Sections under it (HTML: one heading level down).
    pub sections: Vec<Section>,
}

impl Section {
    pub fn new(class: &'static str, id: impl Into<String>, heading: Heading) -> Section {
        Section {
            id: id.into(),
            class,
            heading,
            detail: Detail::All,
            blocks: Vec::new(),
            sections: Vec::new(),
        }
    }

    /// Shown only where `detail` is.
    pub fn only(mut self, detail: Detail) -> Section {
        self.detail = detail;
        self
    }

    /// Adds a block; empty lists and tables without columns are left out.
    pub fn push(&mut self, b: Block) {
        if !b.is_empty() {
            self.blocks.push(b);
        }
    }
}

/// What a section holds.
#[derive(Clone, Debug)]
pub enum Block {
    Paragraph(Paragraph),
    /// Name and value, in order: a short sheet of facts.
    Facts(Vec<Fact>),
    Table(Table),
    Chart(Box<Chart>),
    /// Lines under a table: units, legends, what stopped a run.
    Notes(Vec<Note>),
    Warnings(Vec<Warning>),
    /// A titled list: verdicts, findings, hints, the devices that moved.
    List(List),
    /// A block shown only where its detail is.
    Only(Detail, Box<Block>),
}

impl Block {
    pub fn only(detail: Detail, b: Block) -> Block {
        Block::Only(detail, Box::new(b))
    }

    fn is_empty(&self) -> bool {
        match self {
            Block::Facts(v) => v.is_empty(),
            Block::Notes(v) => v.is_empty(),
            Block::Warnings(v) => v.is_empty(),
            Block::List(l) => l.items.is_empty(),
            Block::Table(t) => t.columns.is_empty(),
            Block::Only(_, b) => b.is_empty(),
            Block::Paragraph(_) | Block::Chart(_) => false,
        }
    }
}

/// How a paragraph reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A subtitle: what a section is about.
    Muted,
    /// The result's verdict; `alert` when it found something wrong.
    Verdict {
        alert: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Paragraph {
    pub tone: Tone,
    pub line: Line,
}

impl Block {
    pub fn paragraph(tone: Tone, line: impl Into<Line>) -> Block {
        Block::Paragraph(Paragraph { tone, line: line.into() })
    }
}

#[derive(Clone, Debug)]
pub struct Fact {
    pub label: String,
    pub value: Line,
    /// Said loudly: what a reader must not miss (I/O through the page cache).
    pub loud: bool,
}

impl Fact {
    pub fn new(label: impl Into<String>, value: impl Into<Line>) -> Fact {
        Fact {
            label: label.into(),
            value: value.into(),
            loud: false,
        }
    }

    /// A fact said loudly: its value in bold in Markdown, `<strong
    /// class="loud">` on a page (its words say it in the terminal).
    pub fn loud(label: impl Into<String>, value: impl Into<Line>) -> Fact {
        Fact {
            loud: true,
            ..Fact::new(label, value)
        }
    }
}

/// What a note says about the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteTone {
    /// Units, legends, the target: said plainly.
    Plain,
    /// The run stopped early (a signal): emphasised where a format can.
    Stopped,
    /// Something failed: emphasised, and coloured on a terminal.
    Failed,
}

#[derive(Clone, Debug)]
pub struct Note {
    pub tone: NoteTone,
    pub line: Line,
}

impl Note {
    pub fn plain(line: impl Into<Line>) -> Note {
        Note {
            tone: NoteTone::Plain,
            line: line.into(),
        }
    }

    pub fn new(tone: NoteTone, line: impl Into<Line>) -> Note {
        Note { tone, line: line.into() }
    }
}

/// A warning: a judge's diagnostic, with what it concerns.
#[derive(Clone, Debug)]
pub struct Warning {
    pub code: String,
    pub severity: Severity,
    /// What it concerns ("all tests", test names); `None`: the section's subject.
    pub scope: Option<String>,
    pub message: String,
}

impl From<&crate::judge::Diagnostic> for Warning {
    /// A diagnostic about the section's subject.
    fn from(d: &crate::judge::Diagnostic) -> Warning {
        Warning {
            code: d.code.as_str().to_string(),
            severity: d.severity,
            scope: None,
            message: d.message.clone(),
        }
    }
}

// ------------------------------------------------------------ lists

/// A titled list of sentences: a scale's verdicts, a comparison's findings,
/// `info`'s hints, the devices a command moved. Every format titles it and
/// writes each item on a line of its own (see the module doc's table).
#[derive(Clone, Debug)]
pub struct List {
    /// What kind of list it is (HTML: the class of its `<div>`, which the
    /// stylesheet may dress: `findings` is boxed).
    pub class: &'static str,
    /// What it lists ("Verdicts", "Findings"); empty: no title line.
    pub title: Line,
    pub items: Vec<Item>,
}

impl List {
    pub fn new(class: &'static str, title: impl Into<Line>) -> List {
        List {
            class,
            title: title.into(),
            items: Vec::new(),
        }
    }

    pub fn item(&mut self, item: impl Into<Item>) {
        self.items.push(item.into());
    }
}

/// One item of a [`List`].
#[derive(Clone, Debug, Default)]
pub struct Item {
    /// What it is about, said before it and a colon ("t1 /dev/sda, queue
    /// depth"): bold in Markdown and HTML.
    pub subject: Option<String>,
    pub line: Line,
    /// The judge's code it carries, with its severity: `[code]` after the
    /// line in formats of lines, a badge before it on a page.
    pub code: Option<(String, Severity)>,
    /// What the reader should see first (a verdict, the key finding):
    /// coloured on a terminal when colouring, `class="key"` on a page.
    pub key: bool,
}

impl Item {
    pub fn new(line: impl Into<Line>) -> Item {
        Item {
            line: line.into(),
            ..Item::default()
        }
    }

    pub fn subject(mut self, s: impl Into<String>) -> Item {
        self.subject = Some(s.into());
        self
    }

    pub fn key(mut self, key: bool) -> Item {
        self.key = key;
        self
    }
}

impl From<Line> for Item {
    fn from(line: Line) -> Item {
        Item::new(line)
    }
}

impl From<&str> for Item {
    fn from(s: &str) -> Item {
        Item::new(s)
    }
}

impl From<String> for Item {
    fn from(s: String) -> Item {
        Item::new(s)
    }
}

impl From<&crate::judge::Diagnostic> for Item {
    /// Its message (which names what it is about), with its code.
    fn from(d: &crate::judge::Diagnostic) -> Item {
        Item {
            code: Some((d.code.as_str().to_string(), d.severity)),
            ..Item::new(d.message.clone())
        }
    }
}

// ------------------------------------------------------------ tables

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table's column.
#[derive(Clone, Debug)]
pub struct Column {
    /// Its heading for people; a bandwidth column's unit follows it ([`Column::heading`]).
    pub label: String,
    /// Its name for programs (the CSV header): snake_case, unit included (`bw_bytes_per_s`).
    pub key: String,
    pub align: Align,
    pub detail: Detail,
    /// Its cells are bandwidths without their unit: the heading says it.
    pub bandwidth: bool,
}

impl Column {
    /// A column of words, left-aligned.
    pub fn text(label: impl Into<String>, key: impl Into<String>) -> Column {
        Column {
            label: label.into(),
            key: key.into(),
            align: Align::Left,
            detail: Detail::All,
            bandwidth: false,
        }
    }

    /// A column of figures, right-aligned.
    pub fn figure(label: impl Into<String>, key: impl Into<String>) -> Column {
        Column {
            align: Align::Right,
            ..Column::text(label, key)
        }
    }

    /// A column of bandwidths: "Read MB/s" (or just "MB/s" with an empty label).
    pub fn bandwidth(label: impl Into<String>, key: impl Into<String>) -> Column {
        Column {
            bandwidth: true,
            ..Column::figure(label, key)
        }
    }

    pub fn only(mut self, detail: Detail) -> Column {
        self.detail = detail;
        self
    }

    /// The heading, in the bandwidth unit `f` shows.
    pub fn heading(&self, f: &Fmt) -> String {
        match (self.bandwidth, self.label.is_empty()) {
            (false, _) => self.label.clone(),
            (true, true) => f.bw.label().to_string(),
            (true, false) => format!("{} {}", self.label, f.bw.label()),
        }
    }
}

/// One row: its cells, and the warnings only it carries (a page puts them under it).
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub cells: Vec<Cell>,
    pub warnings: Vec<Warning>,
}

impl From<Vec<Cell>> for Row {
    fn from(cells: Vec<Cell>) -> Row {
        Row {
            cells,
            warnings: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// The result's records: a format that holds one table (CSV) writes this one.
    pub records: bool,
    /// The result's headline table (HTML: CrystalDiskMark's look, a bar
    /// behind each bandwidth, as long as the fastest on the table).
    pub headline: bool,
    /// Consecutive rows with the same first cell share it (a timeline's window).
    pub grouped: bool,
}

impl Table {
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            ..Table::default()
        }
    }

    pub fn row(&mut self, row: impl Into<Row>) {
        self.rows.push(row.into());
    }

    /// The indices of the columns a renderer showing `shows` shows.
    pub fn shown(&self, shows: &[Detail]) -> Vec<usize> {
        (0..self.columns.len()).filter(|&i| self.columns[i].detail.shown(shows)).collect()
    }
}

// ------------------------------------------------------------ charts
//
// A chart's series, bars, lines, markers and bands are `render::svg`'s
// plain data types, holding values in the axes' quantities (bytes/s,
// bytes, ns, s) rather than display units: each format scales them.

pub use crate::render::svg::{Band, BarSeries, HLine, Marker, Reference, Scale, Series, SeriesStyle};

/// What an axis's values are; each format picks its display unit.
#[derive(Clone, Debug, PartialEq)]
pub enum Quantity {
    /// Bytes per second.
    Bandwidth,
    /// Bytes (positions, sizes).
    Bytes,
    /// Nanoseconds.
    Latency,
    Seconds,
    /// Plain numbers in the unit named (may be empty).
    Number(String),
}

impl Quantity {
    /// A value as a cell, as precise as a table writes it.
    pub fn exact(&self, v: f64) -> Cell {
        match self {
            Quantity::Bandwidth => Cell::bandwidth(v),
            Quantity::Bytes => Cell::Bytes(v.max(0.0) as u64),
            Quantity::Latency => Cell::latency(v),
            Quantity::Seconds => Cell::seconds(v, 3),
            Quantity::Number(_) => Cell::number(v, 2),
        }
    }

    /// A value as a cell for an axis's ticks: one decimal less.
    pub fn coarse(&self, v: f64) -> Cell {
        match self {
            Quantity::Bandwidth => Cell::bandwidth_coarse(v),
            Quantity::Seconds => Cell::seconds(v, 1),
            Quantity::Number(_) => Cell::number(v, 1),
            _ => self.exact(v),
        }
    }

    /// The unit numbers without theirs are in (a tick's, a column's).
    pub fn unit(&self, f: &Fmt) -> String {
        match self {
            Quantity::Bandwidth => f.bw.label().to_string(),
            Quantity::Bytes => "bytes".into(),
            Quantity::Latency => "ns".into(),
            Quantity::Seconds => "s".into(),
            Quantity::Number(u) => u.clone(),
        }
    }
}

/// How an axis's ticks are labelled.
#[derive(Clone, Debug, PartialEq)]
pub enum Ticks {
    Auto,
    /// Byte counts named as block sizes (4K, 1M).
    BlockSizes,
    /// Positions 0, 1, 2… named by these words (percentiles).
    Named(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub quantity: Quantity,
    pub scale: Scale,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub ticks: Ticks,
}

impl Axis {
    pub fn new(label: impl Into<String>, quantity: Quantity, scale: Scale) -> Axis {
        Axis {
            label: label.into(),
            quantity,
            scale,
            min: None,
            max: None,
            ticks: Ticks::Auto,
        }
    }

    pub fn linear(label: impl Into<String>, quantity: Quantity) -> Axis {
        Axis::new(label, quantity, Scale::Linear)
    }

    /// Starting at zero.
    pub fn from_zero(mut self) -> Axis {
        self.min = Some(0.0);
        self
    }

    pub fn range(mut self, min: Option<f64>, max: Option<f64>) -> Axis {
        self.min = min;
        self.max = max;
        self
    }

    pub fn ticks(mut self, ticks: Ticks) -> Axis {
        self.ticks = ticks;
        self
    }
}

/// What a chart draws.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Series against an x axis.
    Lines { x: Axis, series: Vec<Series> },
    /// Bars by category.
    Bars {
        categories: Vec<String>,
        groups: Vec<BarSeries>,
        references: Vec<Reference>,
    },
}

#[derive(Clone, Debug)]
pub struct Chart {
    /// What it shows, stable across versions (HTML: `data-chart`).
    pub kind: String,
    pub title: String,
    /// What to read in it.
    pub caption: Line,
    pub y: Axis,
    pub plot: Plot,
    pub hlines: Vec<HLine>,
    pub markers: Vec<Marker>,
    pub bands: Vec<Band>,
    /// Its numbers, as a table: beside it on a page, in its place where
    /// charts are not drawn.
    pub numbers: Table,
}

impl Chart {
    pub fn lines(kind: &str, title: impl Into<String>, x: Axis, y: Axis) -> Chart {
        Chart {
            kind: kind.to_string(),
            title: title.into(),
            caption: Line::default(),
            y,
            plot: Plot::Lines { x, series: Vec::new() },
            hlines: Vec::new(),
            markers: Vec::new(),
            bands: Vec::new(),
            numbers: Table::default(),
        }
    }

    /// Bars by category against `y`: add their groups with [`Chart::group`].
    pub fn bars(kind: &str, title: impl Into<String>, categories: Vec<String>, y: Axis) -> Chart {
        Chart {
            plot: Plot::Bars {
                categories,
                groups: Vec::new(),
                references: Vec::new(),
            },
            ..Chart::lines(kind, title, Axis::linear("", Quantity::Number(String::new())), y)
        }
    }

    /// Adds a series (to a line chart).
    pub fn series(&mut self, s: Series) {
        if let Plot::Lines { series, .. } = &mut self.plot {
            series.push(s);
        }
    }

    /// Adds a group of bars, a value per category (to a bar chart).
    pub fn group(&mut self, g: BarSeries) {
        if let Plot::Bars { groups, .. } = &mut self.plot {
            groups.push(g);
        }
    }

    /// Adds a reference line over some categories (to a bar chart).
    pub fn reference(&mut self, r: Reference) {
        if let Plot::Bars { references, .. } = &mut self.plot {
            references.push(r);
        }
    }

    /// The one series of a line chart on linear axes: what a text curve can draw.
    pub fn curve(&self) -> Option<(&Axis, &Series)> {
        match &self.plot {
            Plot::Lines { x, series } if series.len() == 1 && x.scale == Scale::Linear && self.y.scale == Scale::Linear => {
                Some((x, &series[0]))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
