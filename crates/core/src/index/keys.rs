//! A short list of strings in one allocation: a note's heading keys (in order) and its block ids
//! (sorted), which were a vector of strings and a hash set of strings, an allocation for each key
//! and one or two for the list, on every note.

/// Strings kept end to end, with where each one ends.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Keys {
    text: Box<str>,
    ends: Box<[usize]>,
}

impl Keys {
    /// The keys in the order given.
    pub(crate) fn new<S: AsRef<str>>(keys: impl IntoIterator<Item = S>) -> Keys {
        let mut text = String::new();
        let mut ends = Vec::new();
        for key in keys {
            text.push_str(key.as_ref());
            ends.push(text.len());
        }
        Keys { text: text.into_boxed_str(), ends: ends.into_boxed_slice() }
    }

    /// The keys sorted, each once, for [`Keys::contains`].
    pub(crate) fn sorted(mut keys: Vec<String>) -> Keys {
        keys.sort_unstable();
        keys.dedup();
        Keys::new(keys)
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        self.text.get(start..end)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }

    /// Whether `key` is one of keys made by [`Keys::sorted`].
    pub(crate) fn contains(&self, key: &str) -> bool {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.get(middle).map(|held| held.cmp(key)) {
                Some(std::cmp::Ordering::Less) => low = middle + 1,
                Some(std::cmp::Ordering::Greater) => high = middle,
                Some(std::cmp::Ordering::Equal) => return true,
                None => return false,
            }
        }
        false
    }

    /// What the keys own on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.len() + size_of_val(&*self.ends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_in_order_and_sorted_ones_are_found() {
        let keys = Keys::new(["intro", "", "part two", "intro"]);
        assert_eq!(keys.iter().collect::<Vec<_>>(), ["intro", "", "part two", "intro"]);
        assert_eq!(keys.get(4), None);
        let ids = Keys::sorted(vec!["b".into(), "a".into(), "c-1".into(), "a".into()]);
        assert_eq!(ids.iter().collect::<Vec<_>>(), ["a", "b", "c-1"]);
        assert!(ids.contains("a") && ids.contains("b") && ids.contains("c-1"));
        assert!(!ids.contains("") && !ids.contains("c") && !ids.contains("d"));
        assert!(!Keys::default().contains("a"));
    }
}
