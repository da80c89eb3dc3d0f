//! A byte range into a note's text: the one unit every part of core speaks in (links, property
//! strings, edits). Lines and columns are derived from it in `line_index` alone.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// A half-open byte range into the text that was parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Span {
        Span { start: range.start, end: range.end }
    }
}

impl Span {
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }
}
