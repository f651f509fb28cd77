//! One column writer for every table the CLI prints for people (`tables.rs`): each column as
//! wide as its widest cell, counted in characters, the last one unpadded.

/// How a column's cells sit in its width.
#[derive(Clone, Copy)]
pub(crate) enum Align {
    Left,
    Right,
}

/// How a table is drawn: what starts each line and what goes between two cells; `ruled`
/// tables (`|` between cells) draw their heading's rule through the cells' padding, joined by
/// `+`, plain ones draw a run of dashes under each column.
pub(crate) struct Style {
    indent: &'static str,
    between: &'static str,
    ruled: bool,
}

/// `preview` and `budget`: two spaces in, two between.
pub(crate) const PLAIN: Style = Style {
    indent: "  ",
    between: "  ",
    ruled: false,
};

/// `cache-report`: cells between `|`.
pub(crate) const RULED: Style = Style {
    indent: " ",
    between: " | ",
    ruled: true,
};

/// A table: a heading per column (its text, alignment and least width), then rows of cells.
/// Each column is as wide as its widest cell or heading, or its least width; the last column
/// is not padded (no trailing spaces).
pub(crate) struct Columns {
    heads: Vec<(&'static str, Align, usize)>,
    rows: Vec<Vec<String>>,
}

impl Columns {
    pub(crate) fn new(heads: &[(&'static str, Align, usize)]) -> Columns {
        Columns {
            heads: heads.to_vec(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub(crate) fn write(&self, style: &Style, out: &mut String) {
        let widths: Vec<usize> = self
            .heads
            .iter()
            .enumerate()
            .map(|(k, &(head, _, least))| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(k))
                    .map(|c| c.chars().count())
                    .fold(head.chars().count().max(least), usize::max)
            })
            .collect();
        let last = self.heads.len().saturating_sub(1);
        let line = |cells: &mut dyn Iterator<Item = &str>, out: &mut String| {
            out.push_str(style.indent);
            for (k, cell) in cells.enumerate() {
                if k > 0 {
                    out.push_str(style.between);
                }
                let (width, align) = (widths[k], self.heads[k].1);
                let pad = " ".repeat(width.saturating_sub(cell.chars().count()));
                match align {
                    Align::Left if k == last => out.push_str(cell),
                    Align::Left => {
                        out.push_str(cell);
                        out.push_str(&pad);
                    }
                    Align::Right => {
                        out.push_str(&pad);
                        out.push_str(cell);
                    }
                }
            }
            out.push('\n');
        };
        line(&mut self.heads.iter().map(|(h, _, _)| *h), out);
        // The rule under the heading: each column's width (the last, unpadded column's, when
        // it is left-aligned: its heading's), plus in a ruled table the padding on either side.
        let runs: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(k, &width)| {
                let width = match self.heads[k] {
                    (head, Align::Left, _) if k == last => head.chars().count(),
                    _ => width,
                };
                let padding = if style.ruled {
                    1 + usize::from(k != last)
                } else {
                    0
                };
                "-".repeat(width + padding)
            })
            .collect();
        if style.ruled {
            out.push_str(&runs.join("+"));
        } else {
            out.push_str(style.indent);
            out.push_str(&runs.join(style.between));
        }
        out.push('\n');
        for row in &self.rows {
            line(&mut row.iter().map(String::as_str), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_two() -> Columns {
        let mut t = Columns::new(&[("name", Align::Left, 0), ("n", Align::Right, 3)]);
        t.row(vec!["café au lait".into(), "7".into()]);
        t.row(vec!["x".into(), "12345".into()]);
        t
    }

    #[test]
    fn columns_are_as_wide_as_their_widest_cell_in_characters() {
        let mut out = String::new();
        two_by_two().write(&PLAIN, &mut out);
        assert_eq!(
            out,
            "  name              n\n  ------------  -----\n  café au lait      7\n  x             12345\n"
        );
    }

    #[test]
    fn a_ruled_table_draws_its_rule_through_the_padding() {
        let mut out = String::new();
        let mut t = Columns::new(&[("turn", Align::Right, 0), ("events", Align::Left, 0)]);
        t.row(vec!["1".into(), "a long event".into()]);
        t.row(vec!["2".into(), String::new()]);
        t.write(&RULED, &mut out);
        // The last column is not padded, and its rule is as long as its heading.
        assert_eq!(
            out,
            " turn | events\n------+-------\n    1 | a long event\n    2 | \n"
        );
    }
}
