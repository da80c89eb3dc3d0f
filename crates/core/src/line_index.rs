//! Converts UTF-8 byte offsets to lines and columns, the one place where that happens.
//!
//! Core works in byte ranges. People read lines and columns (1-based, counted in characters),
//! and JavaScript counts columns in UTF-16 code units; both are derived here and nowhere else.

/// Line starts of one text, for turning byte offsets into positions.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the first byte of each line; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
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
        LineIndex { text, line_starts }
    }

    /// The position of byte `offset`, which must lie on a character boundary of the text.
    pub fn position(&self, offset: usize) -> Position {
        assert!(
            self.text.is_char_boundary(offset),
            "offset {offset} is not a character boundary"
        );
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let prefix = &self.text[self.line_starts[line]..offset];
        Position {
            line: saturating_u32(line + 1),
            column: saturating_u32(prefix.chars().count() + 1),
            column_utf16: saturating_u32(prefix.encode_utf16().count()),
        }
    }
}

fn saturating_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
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
}
