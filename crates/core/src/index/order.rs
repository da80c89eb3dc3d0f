//! The order a note's backlinks are listed in (by source path, then place in the source), told
//! without comparing paths while the file ids allow it.
//!
//! A page of a note's backlinks puts them in that order, and a command that lists them all asks
//! for page after page: comparing two sources' paths at every step (a string each, in slots
//! spread over the heap) was half of a CLI `backlinks` of a vault seen once at 100,000 notes,
//! whose most linked note is linked from 46,000 places. While every file id in use was given in
//! path order (a first index enters its files so, `insert_kept_many` and `insert_prepared_many`
//! on an empty index), ids compare as their paths do, and the order is the links' own `(source,
//! place)`. The first file entered out of order, or put at a reused id, turns that off for the
//! index's life: paths are compared again, and the answers are the same either way.

use std::cmp::Ordering;

use super::{LinkRef, Vault};

/// `items` in the order of their paths (`path_of`), moved rather than copied: at once when they
/// already are (a warm start hands them so), else by a stable sort of their places, so that of
/// one path given twice the later stays later.
pub(super) fn in_path_order<T>(items: Vec<T>, path_of: impl Fn(&T) -> &str) -> Vec<T> {
    if items.windows(2).all(|pair| path_of(&pair[0]) <= path_of(&pair[1])) {
        return items;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|a, b| path_of(&items[*a]).cmp(path_of(&items[*b])));
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.into_iter().filter_map(|at| items[at].take()).collect()
}

impl Vault {
    /// Whether a new file at `path` given the next new id (not a reused one) keeps every id in
    /// path order: its path comes after every path the index holds.
    pub(super) fn keeps_ids_in_path_order(&self, path: &str, reused: bool) -> bool {
        !reused && self.ids.last_key_value().is_none_or(|(last, _)| **last < *path)
    }

    /// Whether `links` are in [`Vault::link_order`] already, told without comparing a path: a
    /// first index files each note's links in order, one note after another.
    pub(super) fn in_link_order(&self, links: &[LinkRef]) -> bool {
        self.ids_in_path_order && links.is_sorted()
    }

    /// `a` against `b` by their sources' paths, then their places in the source.
    pub(super) fn link_order(&self, a: &LinkRef, b: &LinkRef) -> Ordering {
        if self.ids_in_path_order || a.source == b.source {
            a.cmp(b)
        } else {
            self.slot(a.source).path.cmp(&self.slot(b.source).path)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::index::{IndexConfig, LinkAt, Vault};

    /// Every backlink of `target` as (source, line, column), in the order a listing must give:
    /// the source's path, then the place in it; sorted here from the links alone.
    fn expected(vault: &Vault, target: &str) -> Vec<(String, u32, u32)> {
        let mut all: Vec<(String, u32, u32)> =
            vault.backlinks(target).into_iter().map(|link| (link.source.to_owned(), link.link.line, link.link.column)).collect();
        all.sort();
        all
    }

    /// Every page of `target`'s backlinks, `size` at a time, as (source, line, column).
    fn paged(vault: &Vault, target: &str, size: usize) -> Vec<(String, u32, u32)> {
        let total = vault.backlink_count(target);
        let mut listed = Vec::new();
        for start in (0..total).step_by(size) {
            let within = vault.backlinks_ordered_within(target, start..start + size);
            listed.extend(
                within
                    .into_iter()
                    .skip(start)
                    .take(size)
                    .map(LinkAt::build)
                    .map(|link| (link.source.to_owned(), link.link.line, link.link.column)),
            );
        }
        listed
    }

    fn check(vault: &Vault, what: &str) {
        for target in ["hub.md", "z/hub2.md"] {
            let expected = expected(vault, target);
            assert!(!expected.is_empty(), "{what}: {target} has backlinks");
            for size in [1, 3, 7, 1_000] {
                assert_eq!(paged(vault, target, size), expected, "{what}: {target}, pages of {size}");
            }
        }
    }

    /// Notes whose paths sort otherwise than their names would, each linking the two hubs at
    /// several places.
    fn files() -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = (0..30)
            .map(|at| {
                let folder = ["", "a/", "b b/", "B/", "a/z/"][at % 5];
                (format!("{folder}n{}.md", (at * 7) % 30), "[[hub]] x\n[[hub2]] y [[hub]]\n".to_owned())
            })
            .collect();
        files.push(("hub.md".to_owned(), "[[hub]] [[hub2]]".to_owned()));
        files.push(("z/hub2.md".to_owned(), "[[hub]]".to_owned()));
        files
    }

    #[test]
    fn pages_of_backlinks_are_in_path_order_however_the_index_was_made() {
        let parse = crate::parse::ParseConfig::OBSIDIAN;
        let prepared = |files: &[(String, String)]| {
            files.iter().map(|(path, text)| (path.clone(), Vault::prepare(&parse, path, text))).collect::<Vec<_>>()
        };
        // A first index entered in one batch, out of path order: the batch enters it in order.
        let mut batch = Vault::new(IndexConfig::obsidian_defaults());
        batch.insert_prepared_many(prepared(&files()));
        assert!(batch.ids_in_path_order, "a first index's ids follow its paths");
        check(&batch, "one batch");
        // One by one out of order: the paths are compared.
        let mut one_by_one = Vault::new(IndexConfig::obsidian_defaults());
        for (path, text) in files() {
            one_by_one.upsert(&path, &text);
        }
        assert!(!one_by_one.ids_in_path_order);
        check(&one_by_one, "one by one");
        // After the batch: a note added before the others in path order, a note removed and its
        // id reused, a rename, and a second batch.
        batch.upsert("0 first.md", "[[hub]] [[hub2]]");
        assert!(!batch.ids_in_path_order, "a path before the others turns the shortcut off");
        check(&batch, "a note added before the others");
        let mut renamed = Vault::new(IndexConfig::obsidian_defaults());
        renamed.insert_prepared_many(prepared(&files()));
        assert!(renamed.rename("a/n7.md", "zz/n7.md"));
        check(&renamed, "a rename");
        let mut reused = Vault::new(IndexConfig::obsidian_defaults());
        reused.insert_prepared_many(prepared(&files()));
        assert!(reused.remove("n0.md"));
        reused.upsert("zzz.md", "[[hub]] [[hub2]]");
        assert!(!reused.ids_in_path_order, "a reused id turns the shortcut off");
        check(&reused, "a reused id");
        // A note edited in place: its links are filed again after the others', out of order,
        // while the ids still follow the paths.
        let mut edited = Vault::new(IndexConfig::obsidian_defaults());
        edited.insert_prepared_many(prepared(&files()));
        let first = edited.paths().find(|path| path.ends_with(".md")).unwrap().to_owned();
        edited.upsert(&first, "[[hub2]] [[hub]]\n[[hub]]");
        assert!(edited.ids_in_path_order);
        let hub = edited.file("hub.md").unwrap();
        assert!(!hub.backlinks.is_sorted(), "the edited note's links were filed last");
        check(&edited, "a note edited in place");
        let mut later = Vault::new(IndexConfig::obsidian_defaults());
        later.insert_prepared_many(prepared(&files()[..10]));
        later.insert_prepared_many(prepared(&files()[10..]));
        check(&later, "two batches");
    }

    #[test]
    fn a_warm_index_lists_backlinks_in_path_order() {
        let parse = crate::parse::ParseConfig::OBSIDIAN;
        let mut files = files();
        files.reverse();
        let kept = files.into_iter().map(|(path, text)| {
            let prepared = Vault::prepare(&parse, &path, &text);
            (path, prepared, Vec::new())
        });
        let mut warm = Vault::new(IndexConfig::obsidian_defaults());
        warm.insert_kept_many(kept.collect());
        assert!(warm.ids_in_path_order, "the kept files are entered in path order");
        check(&warm, "a warm start");
    }
}
