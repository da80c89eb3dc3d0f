//! Converts UTF-8 byte offsets to lines and columns, the one place where that happens.
//!
//! Core works in byte ranges. People read lines and columns (1-based, counted in characters),
//! and JavaScript counts columns in UTF-16 code units; both are derived here and nowhere else.

use std::cell::Cell;

/// Line starts of one text, for turning byte offsets into positions.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the first byte of each line; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
    /// The last position asked for, as `(offset, position)`. Callers ask in file order, so
    /// counting on from it keeps many links on one long line linear rather than quadratic.
    last: Cell<Option<(usize, Position)>>,
}

/// A position as people and editors count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in Unicode scalar values.
    pub column: u32,
    /// 0-based column, counted in UTF-16 code units, as JavaScript and Obsidian count.
    pub column_utf16: u32,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        LineIndex { text, line_starts, last: Cell::new(None) }
    }

    /// The position of byte `offset`, which must lie on a character boundary of the text.
    pub fn position(&self, offset: usize) -> Position {
        assert!(self.text.is_char_boundary(offset), "offset {offset} is not a character boundary");
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let (from, base) = match self.last.get() {
            Some((last, position)) if last <= offset && last >= self.line_starts[line] => {
                (last, (position.column - 1, position.column_utf16))
            }
            _ => (self.line_starts[line], (0, 0)),
        };
        let (columns, units) =
            self.text[from..offset].chars().fold((0usize, 0usize), |(columns, units), c| (columns + 1, units + c.len_utf16()));
        let position = Position {
            line: saturating_u32(line + 1),
            column: saturating_u32(base.0 as usize + columns + 1),
            column_utf16: saturating_u32(base.1 as usize + units),
        };
        self.last.set(Some((offset, position)));
        position
    }
}

/// A position as Obsidian's `Loc` counts it: 0-based line, 0-based column and offset from the
/// start of the file, both in UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Utf16Position {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
}

/// Line starts of one text with their UTF-16 offsets, for positions as JavaScript counts.
#[derive(Debug, Clone)]
pub struct Utf16Index<'a> {
    lines: LineIndex<'a>,
    /// UTF-16 offset of each line start.
    line_starts_utf16: Vec<usize>,
}

impl<'a> Utf16Index<'a> {
    pub fn new(text: &'a str) -> Utf16Index<'a> {
        let lines = LineIndex::new(text);
        let mut line_starts_utf16 = Vec::with_capacity(lines.line_starts.len());
        let mut units = 0;
        let mut previous = 0;
        for &start in &lines.line_starts {
            units += text[previous..start].encode_utf16().count();
            line_starts_utf16.push(units);
            previous = start;
        }
        Utf16Index { lines, line_starts_utf16 }
    }

    /// The position of byte `offset`, which must lie on a character boundary of the text.
    pub fn position(&self, offset: usize) -> Utf16Position {
        let position = self.lines.position(offset);
        let line = position.line as usize - 1;
        Utf16Position {
            line: position.line - 1,
            col: position.column_utf16,
            offset: saturating_u32(self.line_starts_utf16[line] + position.column_utf16 as usize),
        }
    }
}

fn saturating_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Line numbers of byte offsets without building a [`LineIndex`], for callers that ask for a
/// few lines in increasing order (counting on from the last one asked; an earlier offset starts
/// again from the top). Offsets past the end count as the end.
#[derive(Debug, Clone)]
pub struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: u32,
}

impl<'a> LineCounter<'a> {
    pub fn new(text: &'a str) -> LineCounter<'a> {
        LineCounter { text, offset: 0, line: 1 }
    }

    /// The 1-based line of `offset`.
    pub fn line(&mut self, offset: usize) -> u32 {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        let newlines = self.text.as_bytes()[self.offset..offset].iter().filter(|byte| **byte == b'\n').count();
        self.line = self.line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.offset = offset;
        self.line
    }
}

/// The 1-based line of one byte offset of `text`.
pub fn line_of(text: &str, offset: usize) -> u32 {
    LineCounter::new(text).line(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_utf16_units() {
        let text = "ab\nçé😀x\n";
        let index = LineIndex::new(text);
        assert_eq!(index.position(0), Position { line: 1, column: 1, column_utf16: 0 });
        assert_eq!(index.position(3), Position { line: 2, column: 1, column_utf16: 0 });
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position { line: 2, column: 4, column_utf16: 4 });
        assert_eq!(index.position(text.len()), Position { line: 3, column: 1, column_utf16: 0 });
    }

    #[test]
    fn utf16_positions_count_as_javascript_does() {
        let text = "😀a\nb😀c";
        let index = Utf16Index::new(text);
        let c = text.rfind('c').unwrap();
        // "😀a\n" is 4 UTF-16 units, "b😀" 3 more.
        assert_eq!(index.position(c), Utf16Position { line: 1, col: 3, offset: 7 });
    }
}
